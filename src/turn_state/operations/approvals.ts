/**
 * Approval before a call (DESIGN §9.2): a call that needs a person's approval parks its turn
 * AWAITING_APPROVAL before it runs; each answer — approved, denied, or denied by timeout — is
 * recorded with who gave it and when, and the last one makes the turn SUSPENDED with the mark
 * that it is still to be continued, which the process that serves its channel takes up.
 */
import { IllegalOpMoveError, StaleTurnError } from '../errors.js';
import { APPROVAL_TIMEOUT, describeOpKey, type OpKey, type OpRecord, type OpState } from '../ledger_types.js';
import type { ApprovalAnswer, ApprovalOutcome, ApprovalRule, ChannelRef } from '../approval_store.js';
import { scrubJsonText } from '../scrub.js';
import { turnFromRow, type TurnRow } from '../turn_rows.js';
import { APPROVALS_ANSWERED, type Lease } from '../turn_types.js';
import { bumpTurn } from './fence.js';
import { dialect, now, query, queryOne, type Op } from './instructions.js';
import { opByKey, requireOp } from './ledger.js';
import { noteMove } from './op_moves.js';
import { requireTurn } from './turn_reads.js';

/**
 * Parks the lease's turn until a person answers each of `calls`: they become AWAITING_APPROVAL
 * (from PREPARED only) with the time they expire, and the turn AWAITING_APPROVAL with its lease
 * and owner released, fenced like every owner's write.
 * @throws {StaleTurnError} when the lease is no longer the turn's.
 * @throws {IllegalOpMoveError} when a call is not PREPARED; nothing is kept.
 */
export function* parkForApproval(lease: Lease, calls: readonly OpKey[], timeoutMs: number): Op<OpRecord[]> {
  const at = yield* now();
  yield* bumpTurn(lease, at, 'await approval', `status = 'AWAITING_APPROVAL', suspension_reason = 'awaiting approval', lease_token = NULL, lease_expires_at = NULL, owner_instance = NULL`);
  const parked: OpRecord[] = [];
  for (const call of calls) {
    if (call.turnId !== lease.turnId) throw new StaleTurnError(call.turnId, `await approval with the lease of turn ${lease.turnId}`);
    const { changes } = yield* query(
      `UPDATE ops SET state = 'AWAITING_APPROVAL', approval_requested_at = @now, approval_expires_at = @expiresAt, updated_at = @now
       WHERE turn_id = @turnId AND step = @step AND tool_call_id = @toolCallId AND state = 'PREPARED'`,
      { ...call, now: at, expiresAt: at + timeoutMs },
    );
    if (changes !== 1) throw new IllegalOpMoveError(describeOpKey(call), (yield* opByKey(call))?.state, 'AWAITING_APPROVAL');
    yield* noteMove(call, 'AWAITING_APPROVAL', at, null);
    parked.push(yield* requireOp(call));
  }
  return parked;
}

/**
 * Records a person's answer to one call that waits for approval. The call is named by its key or
 * by its stable idempotency key (what the transport's buttons carry); its turn's row is read
 * locked, so answers on one turn take turns, and the call must be AWAITING_APPROVAL in a turn
 * AWAITING_APPROVAL. `allowHere` keeps a channel rule that lets the tool run without asking from
 * now on. The last answer makes the turn SUSPENDED, its progress time restarted, still to be
 * continued (`resolution_untold`).
 */
export function* answerApproval(answer: ApprovalAnswer): Op<ApprovalOutcome> {
  const key = 'call' in answer ? answer.call : yield* keyOfApproval(answer.approvalId);
  if (key === undefined) return { kind: 'refused', reason: 'call_not_found', op: undefined };
  const { forUpdate } = yield* dialect();
  const row = yield* queryOne<TurnRow>(`SELECT * FROM turns WHERE turn_id = @turnId${forUpdate}`, { turnId: key.turnId });
  const op = yield* opByKey(key);
  if (row === undefined || op === undefined) return { kind: 'refused', reason: 'call_not_found', op: undefined };
  const turn = turnFromRow(row);
  if (op.state !== 'AWAITING_APPROVAL' || turn.status !== 'AWAITING_APPROVAL') return { kind: 'refused', reason: 'not_awaiting_approval', op, turn };
  const at = yield* now();
  yield* query(`UPDATE turns SET revision = revision + 1, updated_at = @now WHERE turn_id = @turnId`, { turnId: turn.turnId, now: at });
  const state: OpState = answer.verdict === 'approved' ? 'APPROVED' : 'DENIED';
  yield* query(
    `UPDATE ops SET state = @state, approval_verdict = @verdict, approval_by = @by, approval_at = @now, approval_note = @note, updated_at = @now
     WHERE turn_id = @turnId AND step = @step AND tool_call_id = @toolCallId AND state = 'AWAITING_APPROVAL'`,
    {
      ...key,
      state,
      verdict: answer.verdict,
      by: answer.by,
      note: answer.note === null ? null : scrubJsonText(answer.note),
      now: at,
    },
  );
  yield* noteMove(key, state, at, answer.by === APPROVAL_TIMEOUT ? null : answer.by);
  if (answer.allowHere === true && answer.verdict === 'approved') {
    yield* query(
      `INSERT INTO approval_rules (source, channel_id, tool_name, allowed_by, allowed_at) VALUES (@source, @channelId, @toolName, @by, @now)
       ON CONFLICT (source, channel_id, tool_name) DO NOTHING`,
      { source: turn.identity.source, channelId: turn.identity.channelId, toolName: op.toolName, by: answer.by, now: at },
    );
  }
  const remaining = (yield* queryOne<{ n: number }>(`SELECT COUNT(*) AS n FROM ops WHERE turn_id = @turnId AND state = 'AWAITING_APPROVAL'`, { turnId: turn.turnId }))?.n ?? 0;
  if (Number(remaining) === 0) {
    yield* query(`UPDATE turns SET status = 'SUSPENDED', suspension_reason = @reason, resolution_untold = 1, last_progress_at = @now, revision = revision + 1 WHERE turn_id = @turnId`, {
      turnId: turn.turnId,
      reason: APPROVALS_ANSWERED,
      now: at,
    });
  }
  return { kind: 'recorded', op: yield* requireOp(key), turn: yield* requireTurn(turn.turnId), remaining: Number(remaining) };
}

/** Denies, by timeout, every call whose request expired by the store's clock; resolves to those calls as they now stand. */
export function* expireApprovals(): Op<OpRecord[]> {
  const expired: OpRecord[] = [];
  for (const call of yield* expiredApprovals()) {
    const outcome = yield* answerApproval({ call, verdict: 'denied', by: APPROVAL_TIMEOUT, note: null });
    if (outcome.kind === 'recorded') expired.push(outcome.op);
  }
  return expired;
}

/**
 * The calls whose request for approval is past its time by the store's clock, oldest first: read
 * through an index of only the waiting calls, so that the look is cheap when none waits and a
 * write is needed only when one expired.
 */
export function* expiredApprovals(): Op<OpKey[]> {
  const { rows } = yield* query<{ turn_id: string; step: number; tool_call_id: string }>(
    `SELECT turn_id, step, tool_call_id FROM ops WHERE state = 'AWAITING_APPROVAL' AND approval_expires_at <= @now ORDER BY approval_expires_at`,
    { now: yield* now() },
  );
  return rows.map((row) => ({ turnId: row.turn_id, step: row.step, toolCallId: row.tool_call_id }));
}

/** Keeps which of the transport's messages asks for a call's approval, so that it can be edited once answered, from any process. */
export function* noteApprovalMessage(call: OpKey, messageId: string): Op<void> {
  yield* query(`UPDATE ops SET approval_message = @messageId WHERE turn_id = @turnId AND step = @step AND tool_call_id = @toolCallId AND approval_requested_at IS NOT NULL`, {
    ...call,
    messageId,
  });
}

/** The call a request's stable key names, if the ledger still has it. */
export function* approvalByKey(approvalId: string): Op<OpRecord | undefined> {
  const key = yield* keyOfApproval(approvalId);
  return key === undefined ? undefined : yield* opByKey(key);
}

/** The "always allow here" rules of a channel, by tool name. */
export function* approvalRulesIn(channel: ChannelRef): Op<ApprovalRule[]> {
  const { rows } = yield* query<{ tool_name: string; allowed_by: string; allowed_at: number }>(
    `SELECT tool_name, allowed_by, allowed_at FROM approval_rules WHERE source = @source AND channel_id = @channelId ORDER BY tool_name`,
    { ...channel },
  );
  return rows.map((row) => ({ toolName: row.tool_name, allowedBy: row.allowed_by, allowedAt: Number(row.allowed_at) }));
}

function* keyOfApproval(approvalId: string): Op<OpKey | undefined> {
  const row = yield* queryOne<{ turn_id: string; step: number; tool_call_id: string }>(
    `SELECT turn_id, step, tool_call_id FROM ops WHERE idempotency_key = @approvalId AND approval_requested_at IS NOT NULL`,
    { approvalId },
  );
  return row === undefined ? undefined : { turnId: row.turn_id, step: row.step, toolCallId: row.tool_call_id };
}
