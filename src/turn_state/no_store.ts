/**
 * The store chosen when no durable one could open (or `turn_state.enabled` is false): the bot
 * still answers, loudly without durability (DESIGN §7.3). It keeps a turn's ledger in memory for
 * the turn's own bookkeeping and nothing else: a turn runs the same code either way, nothing is
 * queued, saved, resumable or awaiting a verdict or an approval, and a suspension or a parking is refused, since
 * nothing could keep it. Chosen at wiring time, so that no caller asks whether there is a store.
 */
import { idempotencyKey } from './call_fingerprint.js';
import { TurnStateUnavailable } from './errors.js';
import { movedOp, type OpKey, type OpRecord } from './ledger_types.js';
import type { OperatorStore, StoreCensus } from './operator_store.js';
import type { TurnStore } from './turn_store.js';
import type { Lease, TurnRecord } from './turn_types.js';

const NOTHING_SWEPT = { suspendedTurns: 0, unknownOps: 0, turnIds: [], uncertainCalls: [] };

/** A turn store that keeps nothing. */
export function noTurnStore(): TurnStore {
  const ops = new Map<string, OpRecord>();
  const keyOf = (key: OpKey): string => `${key.turnId}/${key.step}/${key.toolCallId}`;
  let inboxIds = 0;
  const refused = (operation: string): Promise<never> => Promise.reject(new TurnStateUnavailable(operation, 'durability is off: nothing could keep it'));
  return {
    durable: false,
    admit: (request) => {
      const turnId = `${request.identity.source}:${request.identity.channelId}:${request.identity.messageId}`;
      const lease: Lease = { turnId, generation: 1, revision: 1, token: turnId, expiresAt: Number.MAX_SAFE_INTEGER };
      return Promise.resolve({ disposition: 'admitted', turn: unkeptTurn(turnId, request.identity, request.requesterId, request.messageDigest), lease });
    },
    acceptInbound: () => Promise.resolve((inboxIds += 1)),
    listInbox: () => Promise.resolve([]),
    dropInbound: () => Promise.resolve(),
    heartbeat: () => Promise.resolve(),
    setRecoveryDeadline: () => Promise.resolve(),
    recordModelTurn: (lease, record) => {
      const recorded = record.intents.map((intent): OpRecord => {
        const key = { turnId: lease.turnId, step: record.step, toolCallId: intent.toolCallId };
        return {
          ...key,
          toolName: intent.toolName,
          effect: intent.effect,
          state: 'PREPARED',
          idempotencyKey: idempotencyKey(key),
          fingerprint: '',
          input: intent.input,
          inputRedacted: false,
          result: null,
          error: null,
          verdict: null,
          approval: null,
          createdAt: 0,
          updatedAt: 0,
        };
      });
      for (const op of recorded) ops.set(keyOf(op), op);
      return Promise.resolve(recorded);
    },
    moveOp: (_lease, key, move) => {
      const previous = ops.get(keyOf(key));
      if (previous === undefined) return Promise.reject(new Error(`no op ${keyOf(key)}`));
      const next = movedOp(previous, move);
      ops.set(keyOf(key), next);
      return Promise.resolve(next);
    },
    checkpoint: () => Promise.resolve([]),
    suspend: () => refused('suspend'),
    awaitResolution: () => refused('await resolution'),
    awaitApproval: () => refused('await approval'),
    answerApproval: () => Promise.resolve({ kind: 'refused', reason: 'call_not_found', op: undefined }),
    expireApprovals: () => Promise.resolve([]),
    findApproval: () => Promise.resolve(undefined),
    noteApprovalMessage: () => Promise.resolve(),
    approvalRules: () => Promise.resolve([]),
    finish: (lease) => Promise.resolve(forget(ops, lease)),
    complete: (lease) => Promise.resolve(forget(ops, lease)),
    getTurn: () => Promise.resolve(undefined),
    listSuspended: () => Promise.resolve([]),
    latestTurnOf: () => Promise.resolve(undefined),
    loadResumable: () => Promise.resolve(undefined),
    claimResume: () => Promise.resolve({ won: false, reason: 'not_found' }),
    rejectSuspended: () => Promise.resolve(false),
    listResolvedUntold: () => Promise.resolve([]),
    markResolutionTold: () => Promise.resolve(false),
    listOps: () => Promise.resolve([]),
    recordReplyDelivery: () => Promise.resolve(),
    listPendingReplies: () => Promise.resolve([]),
    sweepOnStartup: () => Promise.resolve(NOTHING_SWEPT),
    sweepExpiredLeases: () => Promise.resolve(NOTHING_SWEPT),
    sweepRetention: () => Promise.resolve({ expiredTurns: 0, tombstonedTurns: 0, deletedOps: 0, deletedTurns: 0, deletedBlobs: 0, abandonedReplies: 0, deletedUsageRows: 0, turnIds: [] }),
    probe: () => refused('probe'),
    close: () => Promise.resolve(),
  };
}

/** The counts of a store that keeps nothing: every one zero. */
export const EMPTY_CENSUS: StoreCensus = {
  active: 0,
  suspended: 0,
  awaitingResolution: 0,
  callsAwaitingVerdict: 0,
  awaitingApproval: 0,
  callsAwaitingApproval: 0,
  repliesPending: 0,
  strandedCalls: 0,
  expiredLeases: 0,
};

/** The operators' view of a store that keeps nothing: there is nothing to see, resolve, approve or copy. */
export const NO_OPERATOR_STORE: OperatorStore = {
  listTurns: () => Promise.resolve([]),
  turnsWithPrefix: () => Promise.resolve([]),
  turnDetail: () => Promise.resolve(undefined),
  turnWork: () => Promise.resolve(undefined),
  resolveCall: () => Promise.resolve({ kind: 'refused', reason: 'turn_not_found', op: undefined }),
  answerApproval: () => Promise.resolve({ kind: 'refused', reason: 'call_not_found', op: undefined }),
  census: () => Promise.resolve(EMPTY_CENSUS),
  processes: () => Promise.resolve([]),
  usage: () => Promise.resolve([]),
  checkIntegrity: () => Promise.resolve([]),
  backup: () => Promise.reject(new TurnStateUnavailable('backup', 'durability is off: there is no store to copy')),
};

/** An ended turn's calls are of no more use. */
function forget(ops: Map<string, OpRecord>, lease: Lease): void {
  for (const key of ops.keys()) if (key.startsWith(`${lease.turnId}/`)) ops.delete(key);
}

function unkeptTurn(turnId: string, identity: TurnRecord['identity'], requesterId: string, messageDigest: string): TurnRecord {
  return {
    turnId,
    identity,
    requesterId,
    messageDigest,
    status: 'ACTIVE',
    generation: 1,
    revision: 1,
    leaseToken: turnId,
    leaseExpiresAt: null,
    createdAt: 0,
    updatedAt: 0,
    lastProgressAt: 0,
    recoveryDeadlineAt: null,
    suspensionReason: null,
    failureReason: null,
    resolutionUntold: false,
    payloadCompacted: false,
    traces: [],
  };
}
