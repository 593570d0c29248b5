import { assertNever } from '../../core/assert_never.js';
import type { StartupSweepResult } from '../turn_store.js';
import { named } from './named_params.js';
import type { PgQueryable } from './pg_pool.js';
import { INTERRUPTED, uncertainCallOf, type RunningOpRow } from '../interrupted_calls.js';

/**
 * Which ACTIVE turns have no live owner (DESIGN §7.7): at a process's start, the turns it owned
 * itself (its own turns cannot be live at its start) and every turn whose lease expired; later,
 * only turns whose lease expired; at the admission of a message, its turn if its lease expired.
 * Never a live lease of another process.
 */
export type Ownerless = { readonly kind: 'at_start'; readonly instanceId: string } | { readonly kind: 'expired' } | { readonly kind: 'turn'; readonly turnId: string };

function conditionOf(which: Ownerless): { readonly sql: string; readonly params: Readonly<Record<string, unknown>> } {
  const expired = `status = 'ACTIVE' AND lease_expires_at <= @now`;
  switch (which.kind) {
    case 'at_start':
      return { sql: `status = 'ACTIVE' AND (owner_instance = @instanceId OR lease_expires_at <= @now)`, params: { instanceId: which.instanceId } };
    case 'expired':
      return { sql: expired, params: {} };
    case 'turn':
      return { sql: `turn_id = @turnId AND ${expired}`, params: { turnId: which.turnId } };
    default:
      return assertNever(which);
  }
}

/**
 * Suspends the ACTIVE turns `which` names, inside the caller's write transaction: their RUNNING
 * ops become OUTCOME_UNKNOWN, since the effect may have begun, while PREPARED ops stay runnable.
 * The turns are locked first, in admission order, and judged again under the lock, so a
 * heartbeat that committed meanwhile keeps its turn, and two processes sweeping together never
 * both take one.
 */
export async function suspendOwnerless(db: PgQueryable, now: number, which: Ownerless): Promise<StartupSweepResult> {
  const condition = conditionOf(which);
  const locking = named(`SELECT turn_id FROM turns WHERE ${condition.sql} ORDER BY created_at, admitted FOR UPDATE`, { ...condition.params, now });
  const turnIds = (await db.query<{ turn_id: string }>(locking.text, locking.values)).rows.map((row) => row.turn_id);
  if (turnIds.length === 0) return { suspendedTurns: 0, unknownOps: 0, turnIds: [], uncertainCalls: [] };

  const { rows: running } = await db.query<RunningOpRow>(
    `SELECT ops.turn_id, ops.step, ops.tool_call_id, ops.tool_name, ops.effect, ops.input, turns.channel_id, turns.requester_id
     FROM ops JOIN turns ON turns.turn_id = ops.turn_id
     WHERE ops.state = 'RUNNING' AND ops.turn_id = ANY($1) ORDER BY turns.created_at, turns.admitted, ops.step, ops.created_at, ops.tool_call_id`,
    [turnIds],
  );
  const unknown = await db.query(`UPDATE ops SET state = 'OUTCOME_UNKNOWN', error = $2, updated_at = $3 WHERE state = 'RUNNING' AND turn_id = ANY($1)`, [turnIds, INTERRUPTED, now]);
  const suspended = await db.query(
    `UPDATE turns SET status = 'SUSPENDED', suspension_reason = 'interrupted', lease_token = NULL, lease_expires_at = NULL, owner_instance = NULL,
       revision = revision + 1, updated_at = $2
     WHERE turn_id = ANY($1)`,
    [turnIds, now],
  );
  return { suspendedTurns: suspended.rowCount ?? 0, unknownOps: unknown.rowCount ?? 0, turnIds, uncertainCalls: running.map(uncertainCallOf) };
}
