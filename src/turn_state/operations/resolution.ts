/**
 * Resolution by an operator (DESIGN §9.1): a turn whose uncertain writes no one can settle parks
 * until each has an operator's verdict; the last verdict makes it resumable, and its requester is
 * told once.
 */
import { StaleTurnError } from '../errors.js';
import { VERDICT_PRIOR_STATE, type OpKey, type OpState } from '../ledger_types.js';
import type { VerdictOutcome, VerdictRequest } from '../operator_store.js';
import { scrubJsonText } from '../scrub.js';
import { turnFromRow, type TurnRow } from '../turn_rows.js';
import type { Lease, TurnRecord } from '../turn_types.js';
import { bumpTurn } from './fence.js';
import { dialect, now, query, queryOne, type Op } from './instructions.js';
import { opByKey, requireOp } from './ledger.js';
import { noteMove } from './op_moves.js';
import { requireTurn, turnsWhere } from './turn_reads.js';

/** The uncertain states a call may be parked from: RUNNING only where no sweep has marked it yet. */
const PARKABLE = ['RUNNING', 'OUTCOME_UNKNOWN', 'MANUAL_RESOLUTION_REQUIRED'];

/**
 * Parks the lease's turn until an operator gives each of `calls` a verdict: the calls become
 * MANUAL_RESOLUTION_REQUIRED and the turn AWAITING_RESOLUTION with its lease and owner released,
 * fenced like every owner's write.
 * @throws {StaleTurnError} when the lease is no longer the turn's.
 */
export function* parkForResolution(lease: Lease, calls: readonly OpKey[], reason: string, at: number): Op<void> {
  const { inList } = yield* dialect();
  yield* bumpTurn(lease, at, 'await resolution', `status = 'AWAITING_RESOLUTION', suspension_reason = @reason, lease_token = NULL, lease_expires_at = NULL, owner_instance = NULL`, {
    reason,
  });
  for (const call of calls) {
    if (call.turnId !== lease.turnId) throw new StaleTurnError(call.turnId, `await resolution with the lease of turn ${lease.turnId}`);
    const { changes } = yield* query(
      `UPDATE ops SET state = 'MANUAL_RESOLUTION_REQUIRED', error = COALESCE(error, 'outcome unknown'), updated_at = @now
       WHERE turn_id = @turnId AND step = @step AND tool_call_id = @toolCallId AND ${inList('state', 'parkable')}`,
      { ...call, now: at, parkable: PARKABLE },
    );
    if (changes === 1) yield* noteMove(call, 'MANUAL_RESOLUTION_REQUIRED', at, null);
  }
}

/**
 * Records an operator's verdict on one call: the turn's row is read locked, so verdicts on one
 * turn take turns; the call must be MANUAL_RESOLUTION_REQUIRED and its turn AWAITING_RESOLUTION
 * at the revision read, which the verdict bumps, so it is fenced like any other write. The last
 * verdict makes the turn SUSPENDED with its resume window restarted and its requester still to be
 * told.
 */
export function* recordVerdict(request: VerdictRequest): Op<VerdictOutcome> {
  const { forUpdate } = yield* dialect();
  const row = yield* queryOne<TurnRow>(`SELECT * FROM turns WHERE turn_id = @turnId${forUpdate}`, { turnId: request.call.turnId });
  if (row === undefined) return { kind: 'refused', reason: 'turn_not_found', op: undefined };
  const turn = turnFromRow(row);
  const op = yield* opByKey(request.call);
  if (op === undefined) return { kind: 'refused', reason: 'call_not_found', op: undefined };
  if (op.state !== VERDICT_PRIOR_STATE || turn.status !== 'AWAITING_RESOLUTION') return { kind: 'refused', reason: 'not_awaiting_verdict', op };
  const at = yield* now();
  const bumped = yield* query(`UPDATE turns SET revision = revision + 1, updated_at = @now WHERE turn_id = @turnId AND status = 'AWAITING_RESOLUTION' AND revision = @revision`, {
    turnId: turn.turnId,
    revision: turn.revision,
    now: at,
  });
  if (bumped.changes === 0) return { kind: 'refused', reason: 'not_awaiting_verdict', op };
  const state: OpState = request.verdict === 'applied' ? 'RESOLVED_APPLIED' : 'RESOLVED_NOT_APPLIED';
  yield* query(
    `UPDATE ops SET state = @state, verdict_by = @by, verdict_at = @now, verdict_text = @text, updated_at = @now
     WHERE turn_id = @turnId AND step = @step AND tool_call_id = @toolCallId AND state = '${VERDICT_PRIOR_STATE}'`,
    {
      ...request.call,
      state,
      by: request.by,
      text: request.text === null ? null : scrubJsonText(request.text),
      now: at,
    },
  );
  yield* noteMove(request.call, state, at, request.by);
  const remaining = (yield* queryOne<{ n: number }>(`SELECT COUNT(*) AS n FROM ops WHERE turn_id = @turnId AND state = '${VERDICT_PRIOR_STATE}'`, { turnId: turn.turnId }))?.n ?? 0;
  if (remaining === 0) {
    yield* query(
      `UPDATE turns SET status = 'SUSPENDED', suspension_reason = 'resolved by an operator', resolution_untold = 1, last_progress_at = @now, revision = revision + 1
       WHERE turn_id = @turnId`,
      { turnId: turn.turnId, now: at },
    );
  }
  return { kind: 'recorded', op: yield* requireOp(request.call), turn: yield* requireTurn(turn.turnId), remaining };
}

/** A transport's suspended turns whose resolution the requester has not been told, oldest first. */
export function* resolvedUntold(source: string): Op<TurnRecord[]> {
  const { admissionOrder } = yield* dialect();
  return yield* turnsWhere(`SELECT * FROM turns WHERE source = @source AND status = 'SUSPENDED' AND resolution_untold = 1 ORDER BY updated_at, ${admissionOrder}`, { source });
}

/** Records that a turn's requester was told of its resolution; `true` only for the caller that changed it, of any process. */
export function* markResolutionTold(turnId: string): Op<boolean> {
  const { changes } = yield* query('UPDATE turns SET resolution_untold = 0 WHERE turn_id = @turnId AND resolution_untold = 1', { turnId });
  return changes === 1;
}
