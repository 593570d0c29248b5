import type { Database } from 'better-sqlite3';
import type { BlobStore } from '../blob_store.js';
import { NEVER_EXPIRING_OP_STATES } from '../ledger_types.js';
import { statement } from './statements.js';
import type { SqliteTranscript } from './transcript.js';
import type { TurnStoreTimings } from '../store_options.js';
import type { RetentionSweepResult, StartupSweepResult } from '../turn_store.js';
import { INTERRUPTED, uncertainCallOf, type RunningOpRow } from '../interrupted_calls.js';

const KEEP_FOREVER = NEVER_EXPIRING_OP_STATES.map((state) => `'${state}'`).join(', ');
const TERMINAL = `status LIKE 'TERMINAL_%'`;

/**
 * Suspends ACTIVE turns that have no live owner (all of them at start-up; those whose lease
 * expired later on): their RUNNING ops become OUTCOME_UNKNOWN, since the effect may have begun,
 * while PREPARED ops stay runnable. Runs inside the caller's write transaction.
 */
export function suspendOwnerless(db: Database, now: number, onlyExpired: boolean): StartupSweepResult {
  const which = `status = 'ACTIVE'${onlyExpired ? ' AND lease_expires_at <= @now' : ''}`;
  const turnIds = (statement(db, `SELECT turn_id FROM turns WHERE ${which} ORDER BY created_at, rowid`).all({ now }) as { turn_id: string }[]).map((row) => row.turn_id);
  const running = statement(
    db,
    `SELECT ops.turn_id, ops.step, ops.tool_call_id, ops.tool_name, ops.effect, ops.input, turns.channel_id, turns.requester_id
     FROM ops JOIN turns ON turns.turn_id = ops.turn_id
     WHERE ops.state = 'RUNNING' AND ${which} ORDER BY turns.created_at, turns.rowid, ops.step, ops.created_at, ops.tool_call_id`,
  ).all({ now }) as RunningOpRow[];
  const unknownOps = statement(
    db,
    `UPDATE ops SET state = 'OUTCOME_UNKNOWN', error = @error, updated_at = @now
     WHERE state = 'RUNNING' AND turn_id IN (SELECT turn_id FROM turns WHERE ${which})`,
  ).run({ now, error: INTERRUPTED }).changes;
  const suspendedTurns = statement(
    db,
    `UPDATE turns SET status = 'SUSPENDED', suspension_reason = 'interrupted', lease_token = NULL, lease_expires_at = NULL,
       revision = revision + 1, updated_at = @now
     WHERE ${which}`,
  ).run({ now }).changes;
  return { suspendedTurns, unknownOps, turnIds, uncertainCalls: running.map(uncertainCallOf) };
}

/** The three retention clocks of DESIGN §10, inside the caller's write transaction, then blob collection. */
export function sweepRetention(db: Database, transcript: SqliteTranscript, blobs: BlobStore, timings: TurnStoreTimings, now: number): RetentionSweepResult {
  const expired = statement(
    db,
    `UPDATE turns SET status = 'TERMINAL_EXPIRED', failure_reason = 'the resume window closed', payload_compacted = 1, revision = revision + 1, updated_at = @now
     WHERE status = 'SUSPENDED' AND last_progress_at + @resumeTtl <= @now RETURNING turn_id`,
  ).all({ now, resumeTtl: timings.resumeTtlMs }) as { turn_id: string }[];
  for (const { turn_id } of expired) transcript.compact(turn_id);

  const payloadCutoff = { cutoff: now - timings.payloadRetentionMs };
  const diagnostic = `state NOT IN (${KEEP_FOREVER}) AND (result IS NOT NULL OR result_blob IS NOT NULL OR error IS NOT NULL)
    AND turn_id IN (SELECT turn_id FROM turns WHERE ${TERMINAL} AND updated_at <= @cutoff)`;
  const tombstoned = statement(db, `SELECT DISTINCT turn_id FROM ops WHERE ${diagnostic}`).all(payloadCutoff) as { turn_id: string }[];
  statement(db, `UPDATE ops SET result = NULL, result_blob = NULL, error = NULL WHERE ${diagnostic}`).run(payloadCutoff);
  for (const { turn_id } of tombstoned) {
    statement(db, `DELETE FROM blob_refs WHERE turn_id = ? AND owner = 'op'`).run(turn_id);
  }

  const abandonedReplies = statement(
    db,
    `UPDATE replies SET state = 'abandoned', text = NULL, failure = 'not delivered within the payload retention', updated_at = @now
     WHERE state = 'pending' AND updated_at <= @cutoff`,
  ).run({ ...payloadCutoff, now }).changes;

  const ledgerCutoff = { cutoff: now - timings.ledgerRetentionMs };
  const deletedOps = statement(
    db,
    `DELETE FROM ops WHERE state NOT IN (${KEEP_FOREVER}) AND updated_at <= @cutoff AND turn_id IN (SELECT turn_id FROM turns WHERE ${TERMINAL})`,
  ).run(ledgerCutoff).changes;
  const deleted = statement(
    db,
    `DELETE FROM turns WHERE ${TERMINAL} AND updated_at <= @cutoff AND NOT EXISTS (SELECT 1 FROM ops WHERE ops.turn_id = turns.turn_id) RETURNING turn_id`,
  ).all(ledgerCutoff) as { turn_id: string }[];

  const referenced = new Set((statement(db, 'SELECT digest FROM blob_refs UNION SELECT digest FROM history_blob_refs').all() as { digest: string }[]).map((row) => row.digest));
  const deletedBlobs = blobs.list().filter((digest) => !referenced.has(digest) && blobs.delete(digest)).length;
  const turnIds = [...new Set([...expired, ...tombstoned, ...deleted].map((row) => row.turn_id))];
  return { expiredTurns: expired.length, tombstonedTurns: tombstoned.length, deletedOps, deletedTurns: deleted.length, deletedBlobs, abandonedReplies, turnIds };
}
