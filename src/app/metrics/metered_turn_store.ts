import { assertNever } from '../../core/assert_never.js';
import type { Clock } from '../../core/clock.js';
import type { LeaseRiders } from '../../turn_state/lease_riders.js';
import type { OpRecord, OpState } from '../../turn_state/ledger_types.js';
import type { TurnStore } from '../../turn_state/turn_store.js';
import type { OwnerTerminalStatus } from '../../turn_state/turn_types.js';
import type { HoldfastMetrics, TurnEnding } from './holdfast_metrics.js';

/**
 * `store`, measured: every durable write is timed into `holdfast_store_write_seconds` (on the
 * monotonic clock, failed writes too), each tool call the ledger settles counts in
 * `holdfast_tool_calls_total`, each turn that ends in `holdfast_turns_total`, and each request
 * for approval answered or expired in `holdfast_approvals_total`, with how long it waited (by the
 * store's clock) in `holdfast_approval_wait_seconds`. Reads pass through untimed.
 */
export function meteredTurnStore(store: TurnStore, metrics: HoldfastMetrics, clock: Clock): TurnStore {
  const timed = <T>(write: () => Promise<T>): Promise<T> => metrics.timedWrite(clock, write);
  /** A turn's write, timed, and the model calls its riders carry counted once it is kept. */
  const carrying = async <T>(riders: LeaseRiders | undefined, write: () => Promise<T>): Promise<T> => {
    const written = await timed(write);
    if (riders?.usage !== undefined) metrics.modelCallsKept(riders.usage.calls);
    return written;
  };
  function countSettled(op: OpRecord): void {
    const outcome = SETTLED_OUTCOMES[op.state];
    if (outcome !== undefined) metrics.toolCallsTotal.inc({ tool: op.toolName, effect: op.effect, outcome });
  }
  function countAnswered(op: OpRecord, expired: boolean): void {
    const { approval } = op;
    if (approval === null || approval.decision === null) return;
    metrics.approvalEnded(expired ? 'expired' : approval.decision.verdict, approval.decision.at - approval.requestedAt);
  }
  // Reads and the readiness probe pass as they are: they are not the bot's durable writes.
  return {
    ...store,
    admit: async (request) => {
      const admission = await timed(() => store.admit(request));
      if (admission.disposition === 'limited') metrics.limitRefusalsTotal.inc({ scope: admission.refusal.limit.scope, limit: admission.refusal.limit.kind });
      return admission;
    },
    acceptInbound: (record) => timed(() => store.acceptInbound(record)),
    dropInbound: (id) => timed(() => store.dropInbound(id)),
    heartbeat: (lease) => timed(() => store.heartbeat(lease)),
    setRecoveryDeadline: (lease, deadlineAt) => timed(() => store.setRecoveryDeadline(lease, deadlineAt)),
    recordModelTurn: (lease, record, riders) => carrying(riders, () => store.recordModelTurn(lease, record, riders)),
    moveOp: async (lease, key, move) => {
      const op = await timed(() => store.moveOp(lease, key, move));
      countSettled(op);
      return op;
    },
    checkpoint: async (lease, write, riders) => {
      const settled = await carrying(riders, () => store.checkpoint(lease, write, riders));
      for (const op of settled) countSettled(op);
      return settled;
    },
    suspend: (lease, reason, riders) => carrying(riders, () => store.suspend(lease, reason, riders)),
    finish: async (lease, status, reason, riders) => {
      await carrying(riders, () => store.finish(lease, status, reason, riders));
      metrics.turnsEnded(endingOf(status));
    },
    complete: async (lease, reply, writtenBy, riders) => {
      await carrying(riders, () => store.complete(lease, reply, writtenBy, riders));
      metrics.turnsEnded('completed');
    },
    recordReplyDelivery: (turnId, progress) => timed(() => store.recordReplyDelivery(turnId, progress)),
    claimResume: (turnId, expectedGeneration, trace) => timed(() => store.claimResume(turnId, expectedGeneration, trace)),
    rejectSuspended: async (turnId, expectedGeneration, reason) => {
      const rejected = await timed(() => store.rejectSuspended(turnId, expectedGeneration, reason));
      if (rejected) metrics.turnsEnded('rejected');
      return rejected;
    },
    awaitResolution: (lease, calls, reason) => timed(() => store.awaitResolution(lease, calls, reason)),
    awaitApproval: (lease, calls, timeoutMs) => timed(() => store.awaitApproval(lease, calls, timeoutMs)),
    answerApproval: async (answer) => {
      const outcome = await timed(() => store.answerApproval(answer));
      if (outcome.kind === 'recorded') countAnswered(outcome.op, false);
      return outcome;
    },
    expireApprovals: async () => {
      const expired = await timed(() => store.expireApprovals());
      for (const op of expired) countAnswered(op, true);
      return expired;
    },
    noteApprovalMessage: (call, messageId) => timed(() => store.noteApprovalMessage(call, messageId)),
    markResolutionTold: (turnId) => timed(() => store.markResolutionTold(turnId)),
    sweepOnStartup: () => timed(() => store.sweepOnStartup()),
    sweepExpiredLeases: () => timed(() => store.sweepExpiredLeases()),
    sweepRetention: async () => {
      const swept = await timed(() => store.sweepRetention());
      metrics.turnsEnded('expired', swept.expiredTurns);
      return swept;
    },
  };
}

/**
 * The `outcome` label of a call the ledger moved to each state; none for a call that only started
 * or waits: a table over every state, so that a new state cannot go unclassified.
 */
const SETTLED_OUTCOMES: Readonly<Record<OpState, string | undefined>> = {
  PREPARED: undefined,
  AWAITING_APPROVAL: undefined,
  APPROVED: undefined,
  RUNNING: undefined,
  APPLIED: 'applied',
  DEFINITELY_FAILED: 'definitely_failed',
  OUTCOME_UNKNOWN: 'outcome_unknown',
  RECONCILED_APPLIED: 'reconciled_applied',
  RECONCILED_FAILED: 'reconciled_failed',
  MANUAL_RESOLUTION_REQUIRED: 'manual_resolution_required',
  RESOLVED_APPLIED: 'resolved_applied',
  RESOLVED_NOT_APPLIED: 'resolved_not_applied',
  DENIED: 'denied',
};

function endingOf(status: OwnerTerminalStatus): TurnEnding {
  switch (status) {
    case 'TERMINAL_COMPLETED':
      return 'completed';
    case 'TERMINAL_FAILED':
      return 'failed';
    case 'TERMINAL_CANCELLED':
      return 'cancelled';
    case 'TERMINAL_REJECTED':
      return 'rejected';
    default:
      return assertNever(status);
  }
}
