/**
 * The sweeps of DESIGN §8 and §10: turns left ACTIVE without a live owner are suspended (their
 * RUNNING calls become OUTCOME_UNKNOWN), and the retention clocks run. Each sweep's counts are
 * logged by whoever runs it.
 */
import { assertNever } from '../../core/assert_never.js';
import { INTERRUPTED, uncertainCallOf, type RunningOpRow } from '../interrupted_calls.js';
import { NEVER_EXPIRING_OP_STATES } from '../ledger_types.js';
import type { TurnStoreTimings } from '../store_options.js';
import type { RetentionSweepResult, StartupSweepResult } from '../turn_store.js';
import { sweepUsage } from './usage.js';
import { collectBlobs, dialect, exclusive, query, type Op } from './instructions.js';
import { forgetMovesWhere, noteMovesWhere } from './op_moves.js';
import { compactTranscript } from './transcript.js';

/**
 * Which ACTIVE turns have no live owner (DESIGN §7.7). At a start: on a store one process holds
 * (SQLite), every one (`all`); on a shared one (PostgreSQL), the starting process's own turns —
 * which cannot be live at its start — and every turn whose lease expired (`own`). Later, only
 * turns whose lease expired; at the admission of a message, its turn if its lease expired. Never a
 * live lease of another process.
 */
export type Ownerless = { readonly kind: 'all' } | { readonly kind: 'own'; readonly instanceId: string } | { readonly kind: 'expired' } | { readonly kind: 'turn'; readonly turnId: string };

function conditionOf(which: Ownerless): { readonly sql: string; readonly params: Readonly<Record<string, unknown>> } {
  const expired = `status = 'ACTIVE' AND lease_expires_at <= @now`;
  switch (which.kind) {
    case 'all':
      return { sql: `status = 'ACTIVE'`, params: {} };
    case 'own':
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
 * Suspends the ACTIVE turns `which` names: their RUNNING ops become OUTCOME_UNKNOWN, since the
 * effect may have begun, while PREPARED ops stay runnable. The turns are locked first, in admission
 * order, and judged again under the lock, so a heartbeat that committed meanwhile keeps its turn,
 * and two processes sweeping together never both take one.
 */
export function* suspendOwnerless(at: number, which: Ownerless): Op<StartupSweepResult> {
  const { admissionOrder, forUpdate, inList } = yield* dialect();
  const condition = conditionOf(which);
  const locked = yield* query<{ turn_id: string }>(`SELECT turn_id FROM turns WHERE ${condition.sql} ORDER BY created_at, ${admissionOrder}${forUpdate}`, { ...condition.params, now: at });
  const turnIds = locked.rows.map((row) => row.turn_id);
  if (turnIds.length === 0) return { suspendedTurns: 0, unknownOps: 0, turnIds: [], uncertainCalls: [] };
  const running = yield* query<RunningOpRow>(
    `SELECT ops.turn_id, ops.step, ops.tool_call_id, ops.tool_name, ops.effect, ops.input, turns.channel_id, turns.requester_id
     FROM ops JOIN turns ON turns.turn_id = ops.turn_id
     WHERE ops.state = 'RUNNING' AND ${inList('ops.turn_id', 'turnIds')} ORDER BY turns.created_at, turns.${admissionOrder}, ops.step, ops.created_at, ops.tool_call_id`,
    { turnIds },
  );
  yield* noteMovesWhere(`state = 'RUNNING' AND ${inList('turn_id', 'turnIds')}`, { turnIds }, 'OUTCOME_UNKNOWN', at);
  const unknown = yield* query(`UPDATE ops SET state = 'OUTCOME_UNKNOWN', error = @error, updated_at = @now WHERE state = 'RUNNING' AND ${inList('turn_id', 'turnIds')}`, {
    turnIds,
    error: INTERRUPTED,
    now: at,
  });
  const suspended = yield* query(
    `UPDATE turns SET status = 'SUSPENDED', suspension_reason = 'interrupted', lease_token = NULL, lease_expires_at = NULL, owner_instance = NULL,
       revision = revision + 1, updated_at = @now
     WHERE ${inList('turn_id', 'turnIds')}`,
    { turnIds, now: at },
  );
  return { suspendedTurns: suspended.changes, unknownOps: unknown.changes, turnIds, uncertainCalls: running.rows.map(uncertainCallOf) };
}

const TERMINAL = `status LIKE 'TERMINAL_%'`;
const DAY_MS = 86_400_000;

/**
 * The three retention clocks of DESIGN §10 and usage's (DESIGN §10.1), judged at `at`, then blob collection. Processes
 * sweeping one shared store together take turns, so they never deadlock over the same rows.
 */
export function* sweepRetention(timings: TurnStoreTimings, at: number): Op<RetentionSweepResult> {
  const { inList } = yield* dialect();
  yield* exclusive('retention');
  const expired = yield* query<{ turn_id: string }>(
    `UPDATE turns SET status = 'TERMINAL_EXPIRED', failure_reason = 'the resume window closed', payload_compacted = 1, revision = revision + 1, updated_at = @now
     WHERE status = 'SUSPENDED' AND last_progress_at + @resumeTtl <= @now RETURNING turn_id`,
    { now: at, resumeTtl: timings.resumeTtlMs },
  );
  for (const { turn_id } of expired.rows) yield* compactTranscript(turn_id);

  const kept = { keepForever: NEVER_EXPIRING_OP_STATES };
  const payload = { ...kept, cutoff: at - timings.payloadRetentionMs };
  const diagnostic = `NOT (${inList('state', 'keepForever')}) AND (result IS NOT NULL OR result_blob IS NOT NULL OR error IS NOT NULL)
    AND turn_id IN (SELECT turn_id FROM turns WHERE ${TERMINAL} AND updated_at <= @cutoff)`;
  const tombstoned = yield* query<{ turn_id: string }>(`SELECT DISTINCT turn_id FROM ops WHERE ${diagnostic}`, payload);
  yield* query(`UPDATE ops SET result = NULL, result_blob = NULL, error = NULL WHERE ${diagnostic}`, payload);
  yield* query(`DELETE FROM blob_refs WHERE ${inList('turn_id', 'turnIds')} AND owner = 'op'`, { turnIds: tombstoned.rows.map((row) => row.turn_id) });

  const abandoned = yield* query(
    `UPDATE replies SET state = 'abandoned', text = NULL, failure = 'not delivered within the payload retention', updated_at = @now
     WHERE state = 'pending' AND updated_at <= @cutoff`,
    { cutoff: payload.cutoff, now: at },
  );

  const ledger = { ...kept, cutoff: at - timings.ledgerRetentionMs };
  const expiredOps = `NOT (${inList('ops.state', 'keepForever')}) AND ops.updated_at <= @cutoff AND ops.turn_id IN (SELECT turn_id FROM turns WHERE ${TERMINAL})`;
  yield* forgetMovesWhere(expiredOps, ledger);
  const deletedOps = yield* query(`DELETE FROM ops WHERE ${expiredOps}`, ledger);
  const deleted = yield* query<{ turn_id: string }>(
    `DELETE FROM turns WHERE ${TERMINAL} AND updated_at <= @cutoff AND NOT EXISTS (SELECT 1 FROM ops WHERE ops.turn_id = turns.turn_id) RETURNING turn_id`,
    { cutoff: ledger.cutoff },
  );

  // Usage's detailed rows go with the turns' payload; its daily totals stay far longer.
  const deletedUsageRows = yield* sweepUsage({ detailDays: timings.payloadRetentionMs / DAY_MS, dailyDays: timings.usageRetentionMs / DAY_MS });
  const deletedBlobs = yield* collectBlobs();
  const turnIds = [...new Set([...expired.rows, ...tombstoned.rows, ...deleted.rows].map((row) => row.turn_id))];
  return {
    expiredTurns: expired.rows.length,
    tombstonedTurns: tombstoned.rows.length,
    deletedOps: deletedOps.changes,
    deletedTurns: deleted.rows.length,
    deletedBlobs,
    abandonedReplies: abandoned.changes,
    deletedUsageRows,
    turnIds,
  };
}
