import type { Database } from 'better-sqlite3';
import { StaleTurnError } from '../errors.js';
import { VERDICT_PRIOR_STATE, type OpKey } from '../ledger_types.js';
import type { VerdictOutcome, VerdictRequest } from '../operator_store.js';
import { scrubJsonText } from '../scrub.js';
import { bumpTurn } from './fence.js';
import type { SqliteLedger } from './ledger.js';
import { turnFromRow, type TurnRow } from '../turn_rows.js';
import { statement } from './statements.js';
import { requireTurn, turnById } from './turn_reads.js';
import type { Lease, TurnRecord } from '../turn_types.js';

/** The uncertain states a call may be parked from: RUNNING only where no sweep has marked it yet. */
const PARKABLE = `'RUNNING', 'OUTCOME_UNKNOWN', 'MANUAL_RESOLUTION_REQUIRED'`;

/**
 * Parks the lease's turn until an operator gives each of `calls` a verdict (DESIGN §9.1): the
 * calls become MANUAL_RESOLUTION_REQUIRED and the turn AWAITING_RESOLUTION with its lease
 * released, in the caller's write transaction, fenced like every owner's write.
 * @throws {StaleTurnError} when the lease is no longer the turn's.
 */
export function parkForResolution(db: Database, lease: Lease, calls: readonly OpKey[], reason: string, now: number): void {
  bumpTurn(db, lease, now, 'await resolution', `status = 'AWAITING_RESOLUTION', suspension_reason = @reason, lease_token = NULL, lease_expires_at = NULL`, { reason });
  const mark = statement(
    db,
    `UPDATE ops SET state = 'MANUAL_RESOLUTION_REQUIRED', error = COALESCE(error, 'outcome unknown'), updated_at = @now
     WHERE turn_id = @turnId AND step = @step AND tool_call_id = @toolCallId AND state IN (${PARKABLE})`,
  );
  for (const call of calls) {
    if (call.turnId !== lease.turnId) throw new StaleTurnError(call.turnId, `await resolution with the lease of turn ${lease.turnId}`);
    mark.run({ ...call, now });
  }
}

/**
 * Records an operator's verdict on one call (DESIGN §9.1), in the caller's write transaction: the
 * call must be MANUAL_RESOLUTION_REQUIRED and its turn AWAITING_RESOLUTION, checked against the
 * turn's revision read here; the turn's revision is bumped, so a verdict is fenced like any other
 * write. The last verdict makes the turn SUSPENDED with its resume window restarted and its
 * requester still to be told.
 */
export function recordVerdict(db: Database, ledger: SqliteLedger, request: VerdictRequest, now: number): VerdictOutcome {
  const turn = turnById(db, request.call.turnId);
  if (turn === undefined) return { kind: 'refused', reason: 'turn_not_found', op: undefined };
  const op = ledger.get(request.call);
  if (op === undefined) return { kind: 'refused', reason: 'call_not_found', op: undefined };
  if (op.state !== VERDICT_PRIOR_STATE || turn.status !== 'AWAITING_RESOLUTION') return { kind: 'refused', reason: 'not_awaiting_verdict', op };
  const bumped = statement(db, `UPDATE turns SET revision = revision + 1, updated_at = @now WHERE turn_id = @turnId AND status = 'AWAITING_RESOLUTION' AND revision = @revision`).run({
    turnId: turn.turnId,
    revision: turn.revision,
    now,
  }).changes;
  if (bumped === 0) return { kind: 'refused', reason: 'not_awaiting_verdict', op };
  statement(
    db,
    `UPDATE ops SET state = @state, verdict_by = @by, verdict_at = @now, verdict_text = @text, updated_at = @now
     WHERE turn_id = @turnId AND step = @step AND tool_call_id = @toolCallId AND state = '${VERDICT_PRIOR_STATE}'`,
  ).run({
    ...request.call,
    state: request.verdict === 'applied' ? 'RESOLVED_APPLIED' : 'RESOLVED_NOT_APPLIED',
    by: request.by,
    text: request.text === null ? null : scrubJsonText(request.text),
    now,
  });
  const remaining = (statement(db, `SELECT COUNT(*) AS n FROM ops WHERE turn_id = ? AND state = '${VERDICT_PRIOR_STATE}'`).get(turn.turnId) as { n: number }).n;
  if (remaining === 0) {
    statement(
      db,
      `UPDATE turns SET status = 'SUSPENDED', suspension_reason = 'resolved by an operator', resolution_untold = 1, last_progress_at = @now, revision = revision + 1
       WHERE turn_id = @turnId`,
    ).run({ turnId: turn.turnId, now });
  }
  return { kind: 'recorded', op: ledger.require(request.call), turn: requireTurn(db, turn.turnId), remaining };
}

/** A transport's suspended turns whose resolution the requester has not been told, oldest first. */
export function resolvedUntold(db: Database, source: string): TurnRecord[] {
  const rows = statement(db, `SELECT * FROM turns WHERE source = ? AND status = 'SUSPENDED' AND resolution_untold = 1 ORDER BY updated_at, rowid`).all(source) as TurnRow[];
  return rows.map(turnFromRow);
}

/** Records that a turn's requester was told of its resolution; `true` only for the caller that changed it. */
export function markResolutionTold(db: Database, turnId: string): boolean {
  return statement(db, 'UPDATE turns SET resolution_untold = 0 WHERE turn_id = ? AND resolution_untold = 1').run(turnId).changes === 1;
}
