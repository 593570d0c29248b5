import { StaleTurnError } from '../errors.js';
import { VERDICT_PRIOR_STATE, type OpKey } from '../ledger_types.js';
import type { VerdictOutcome, VerdictRequest } from '../operator_store.js';
import { scrubJsonText } from '../scrub.js';
import { turnFromRow, type TurnRow } from '../turn_rows.js';
import type { Lease, TurnRecord } from '../turn_types.js';
import { bumpTurn, databaseNow } from './pg_fence.js';
import { opByKey } from './pg_op_reads.js';
import type { PgQueryable } from './pg_pool.js';
import { requireTurn } from './pg_turn_reads.js';

/** The uncertain states a call may be parked from: RUNNING only where no sweep has marked it yet. */
const PARKABLE = ['RUNNING', 'OUTCOME_UNKNOWN', 'MANUAL_RESOLUTION_REQUIRED'];

/**
 * Parks the lease's turn until an operator gives each of `calls` a verdict (DESIGN §9.1): the
 * calls become MANUAL_RESOLUTION_REQUIRED and the turn AWAITING_RESOLUTION with its lease and
 * owner released, in the caller's write transaction, fenced like every owner's write.
 * @throws {StaleTurnError} when the lease is no longer the turn's.
 */
export async function parkForResolution(db: PgQueryable, lease: Lease, calls: readonly OpKey[], reason: string, now: number): Promise<void> {
  await bumpTurn(
    db,
    lease,
    now,
    'await resolution',
    `status = 'AWAITING_RESOLUTION', suspension_reason = @reason, lease_token = NULL, lease_expires_at = NULL, owner_instance = NULL`,
    { reason },
  );
  for (const call of calls) {
    if (call.turnId !== lease.turnId) throw new StaleTurnError(call.turnId, `await resolution with the lease of turn ${lease.turnId}`);
    await db.query(
      `UPDATE ops SET state = 'MANUAL_RESOLUTION_REQUIRED', error = COALESCE(error, 'outcome unknown'), updated_at = $4
       WHERE turn_id = $1 AND step = $2 AND tool_call_id = $3 AND state = ANY($5)`,
      [call.turnId, call.step, call.toolCallId, now, PARKABLE],
    );
  }
}

/**
 * Records an operator's verdict on one call (DESIGN §9.1), in the caller's write transaction: the
 * turn's row is read locked, so verdicts on one turn take turns; the call must be
 * MANUAL_RESOLUTION_REQUIRED and its turn AWAITING_RESOLUTION at the revision read, which the
 * verdict bumps, so it is fenced like any other write. The last verdict makes the turn SUSPENDED
 * with its resume window restarted and its requester still to be told.
 */
export async function recordVerdict(db: PgQueryable, request: VerdictRequest): Promise<VerdictOutcome> {
  const row = (await db.query<TurnRow>('SELECT * FROM turns WHERE turn_id = $1 FOR UPDATE', [request.call.turnId])).rows[0];
  if (row === undefined) return { kind: 'refused', reason: 'turn_not_found', op: undefined };
  const turn = turnFromRow(row);
  const op = await opByKey(db, request.call);
  if (op === undefined) return { kind: 'refused', reason: 'call_not_found', op: undefined };
  if (op.state !== VERDICT_PRIOR_STATE || turn.status !== 'AWAITING_RESOLUTION') return { kind: 'refused', reason: 'not_awaiting_verdict', op };
  const now = await databaseNow(db);
  const bumped = await db.query(`UPDATE turns SET revision = revision + 1, updated_at = $3 WHERE turn_id = $1 AND status = 'AWAITING_RESOLUTION' AND revision = $2`, [
    turn.turnId,
    turn.revision,
    now,
  ]);
  if (bumped.rowCount === 0) return { kind: 'refused', reason: 'not_awaiting_verdict', op };
  const { call } = request;
  await db.query(
    `UPDATE ops SET state = $4, verdict_by = $5, verdict_at = $7, verdict_text = $6, updated_at = $7
     WHERE turn_id = $1 AND step = $2 AND tool_call_id = $3 AND state = '${VERDICT_PRIOR_STATE}'`,
    [call.turnId, call.step, call.toolCallId, request.verdict === 'applied' ? 'RESOLVED_APPLIED' : 'RESOLVED_NOT_APPLIED', request.by, request.text === null ? null : scrubJsonText(request.text), now],
  );
  const counted = await db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ops WHERE turn_id = $1 AND state = '${VERDICT_PRIOR_STATE}'`, [turn.turnId]);
  const remaining = counted.rows[0]?.n ?? 0;
  if (remaining === 0) {
    await db.query(
      `UPDATE turns SET status = 'SUSPENDED', suspension_reason = 'resolved by an operator', resolution_untold = 1, last_progress_at = $2, revision = revision + 1
       WHERE turn_id = $1`,
      [turn.turnId, now],
    );
  }
  const recorded = await opByKey(db, call);
  if (recorded === undefined) throw new Error(`op ${call.turnId}/${call.step}/${call.toolCallId} vanished inside its own transaction`);
  return { kind: 'recorded', op: recorded, turn: await requireTurn(db, turn.turnId), remaining };
}

/** A transport's suspended turns whose resolution the requester has not been told, oldest first. */
export async function resolvedUntold(db: PgQueryable, source: string): Promise<TurnRecord[]> {
  const { rows } = await db.query<TurnRow>(`SELECT * FROM turns WHERE source = $1 AND status = 'SUSPENDED' AND resolution_untold = 1 ORDER BY updated_at, admitted`, [source]);
  return rows.map(turnFromRow);
}

/** Records that a turn's requester was told of its resolution; `true` only for the caller that changed it, of any process. */
export async function markResolutionTold(db: PgQueryable, turnId: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE turns SET resolution_untold = 0 WHERE turn_id = $1 AND resolution_untold = 1', [turnId]);
  return rowCount === 1;
}
