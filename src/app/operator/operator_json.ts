import { assertNever } from '../../core/assert_never.js';
import { ledgerCallLabel, shortTurnId } from '../../engine/call_label.js';
import type { OpRecord } from '../../turn_state/ledger_types.js';
import type { ReplyDelivery, StoreCensus, TurnOverview } from '../../turn_state/operator_store.js';
import type { TurnRecord } from '../../turn_state/turn_types.js';
import type { UsageRow } from '../../turn_state/usage_store.js';

/**
 * The JSON documents of the operator commands (`--json`): stable, snake_case keys, times as ISO
 * 8601 strings in UTC, absent values as `null`. docs/operations.md documents each shape.
 */

/** An epoch-milliseconds time as ISO 8601 UTC, or `null`. */
export function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** Why a turn stands where it does, as the store recorded it: a waiting turn's suspension reason, an ended one's failure reason. */
export function turnReason(turn: TurnRecord): string | null {
  switch (turn.status) {
    case 'ACTIVE':
      return null;
    case 'SUSPENDED':
    case 'AWAITING_RESOLUTION':
    case 'AWAITING_APPROVAL':
      return turn.suspensionReason;
    case 'TERMINAL_COMPLETED':
    case 'TERMINAL_FAILED':
    case 'TERMINAL_CANCELLED':
    case 'TERMINAL_REJECTED':
    case 'TERMINAL_EXPIRED':
      return turn.failureReason;
    default:
      return assertNever(turn.status);
  }
}

/** A turn's record as every operator document shows it; `now` gives its age. */
export function turnJson(turn: TurnRecord, now: number): Record<string, unknown> {
  return {
    id: turn.turnId,
    short_id: shortTurnId(turn.turnId),
    status: turn.status,
    source: turn.identity.source,
    channel: turn.identity.channelId,
    message: turn.identity.messageId,
    requester: turn.requesterId,
    created_at: isoTime(turn.createdAt),
    updated_at: isoTime(turn.updatedAt),
    last_progress_at: isoTime(turn.lastProgressAt),
    age_seconds: Math.max(0, Math.floor((now - turn.createdAt) / 1000)),
    generation: turn.generation,
    reason: turnReason(turn),
  };
}

/** One entry of `turns list --json`: the turn, its calls awaiting a verdict or an approval and its reply's state. */
export function overviewJson(overview: TurnOverview, now: number): Record<string, unknown> {
  return { ...turnJson(overview.turn, now), calls_awaiting_verdict: overview.callsAwaitingVerdict, calls_awaiting_approval: overview.callsAwaitingApproval, reply: overview.reply };
}

/** One ledger row of `turns show --json`; `label` is how `turns resolve`, `approve` and `deny` name the call. */
export function callJson(op: OpRecord, ops: readonly OpRecord[]): Record<string, unknown> {
  return {
    step: op.step,
    call: op.toolCallId,
    label: ledgerCallLabel(op, ops),
    tool: op.toolName,
    effect: op.effect,
    state: op.state,
    input: op.input,
    input_redacted: op.inputRedacted,
    result: op.result,
    error: op.error,
    verdict: op.verdict === null ? null : { applied: op.state === 'RESOLVED_APPLIED', text: op.verdict.text, by: op.verdict.by, at: isoTime(op.verdict.at) },
    approval: approvalJson(op),
  };
}

/** A call's request for approval in `turns show --json`: when it was asked and until when, and its answer once given. */
function approvalJson({ approval }: OpRecord): Record<string, unknown> | null {
  if (approval === null) return null;
  const { decision } = approval;
  return {
    requested_at: isoTime(approval.requestedAt),
    expires_at: isoTime(approval.expiresAt),
    message: approval.messageId,
    answer: decision === null ? null : { verdict: decision.verdict, by: decision.by, at: isoTime(decision.at), note: decision.note },
  };
}

/** A reply's delivery in `turns show --json`. */
export function replyJson(reply: ReplyDelivery): Record<string, unknown> {
  return { state: reply.state, parts_delivered: reply.partsDelivered, created_at: isoTime(reply.createdAt), delivered_at: isoTime(reply.deliveredAt), failure: reply.failure };
}

/** The counts of `doctor --json`. */
export function censusJson(census: StoreCensus): Record<string, number> {
  return {
    active: census.active,
    suspended: census.suspended,
    awaiting_resolution: census.awaitingResolution,
    calls_awaiting_verdict: census.callsAwaitingVerdict,
    awaiting_approval: census.awaitingApproval,
    calls_awaiting_approval: census.callsAwaitingApproval,
    replies_pending: census.repliesPending,
    stranded_calls: census.strandedCalls,
    expired_leases: census.expiredLeases,
  };
}

/** One row of `usage --json`: `key` is the user, channel, server, model or day it groups, `null` for the totals. */
export function usageRowJson(row: UsageRow, grouped: boolean): Record<string, unknown> {
  return {
    key: grouped ? row.key : null,
    turns: row.turns,
    refusals: row.refusals,
    calls: row.calls,
    unknown_calls: row.unknownCalls,
    input_tokens: row.inputTokens,
    cached_input_tokens: row.cachedInputTokens,
    output_tokens: row.outputTokens,
    reasoning_tokens: row.reasoningTokens,
    cost: row.cost,
  };
}

/** A document as the commands print it: one line of JSON. */
export function jsonDocument(document: Record<string, unknown>): string {
  return `${JSON.stringify(document)}\n`;
}
