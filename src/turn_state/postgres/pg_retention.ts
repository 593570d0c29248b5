import { NEVER_EXPIRING_OP_STATES } from '../ledger_types.js';
import type { TurnStoreTimings } from '../store_options.js';
import type { RetentionSweepResult } from '../turn_store.js';
import type { PgQueryable } from './pg_pool.js';
import { compactTranscript } from './pg_transcript.js';

const TERMINAL = `status LIKE 'TERMINAL_%'`;

/**
 * The three retention clocks of DESIGN §10, judged by the database's `now`, then blob collection,
 * inside the caller's write transaction. Processes sweeping together take turns (a transaction
 * advisory lock), so they never deadlock over the same rows.
 */
export async function sweepRetention(db: PgQueryable, timings: TurnStoreTimings, now: number): Promise<RetentionSweepResult> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtext('holdfast:retention:' || current_schema()))`);
  const expired = (
    await db.query<{ turn_id: string }>(
      `UPDATE turns SET status = 'TERMINAL_EXPIRED', failure_reason = 'the resume window closed', payload_compacted = 1, revision = revision + 1, updated_at = $1
       WHERE status = 'SUSPENDED' AND last_progress_at + $2 <= $1 RETURNING turn_id`,
      [now, timings.resumeTtlMs],
    )
  ).rows;
  for (const { turn_id } of expired) await compactTranscript(db, turn_id);

  const payloadCutoff = now - timings.payloadRetentionMs;
  const diagnostic = `state <> ALL($2) AND (result IS NOT NULL OR result_blob IS NOT NULL OR error IS NOT NULL)
    AND turn_id IN (SELECT turn_id FROM turns WHERE ${TERMINAL} AND updated_at <= $1)`;
  const tombstoned = (await db.query<{ turn_id: string }>(`SELECT DISTINCT turn_id FROM ops WHERE ${diagnostic}`, [payloadCutoff, NEVER_EXPIRING_OP_STATES])).rows;
  await db.query(`UPDATE ops SET result = NULL, result_blob = NULL, error = NULL WHERE ${diagnostic}`, [payloadCutoff, NEVER_EXPIRING_OP_STATES]);
  await db.query(`DELETE FROM blob_refs WHERE turn_id = ANY($1) AND owner = 'op'`, [tombstoned.map((row) => row.turn_id)]);

  const abandoned = await db.query(
    `UPDATE replies SET state = 'abandoned', text = NULL, failure = 'not delivered within the payload retention', updated_at = $2
     WHERE state = 'pending' AND updated_at <= $1`,
    [payloadCutoff, now],
  );

  const ledgerCutoff = now - timings.ledgerRetentionMs;
  const deletedOps = await db.query(`DELETE FROM ops WHERE state <> ALL($2) AND updated_at <= $1 AND turn_id IN (SELECT turn_id FROM turns WHERE ${TERMINAL})`, [
    ledgerCutoff,
    NEVER_EXPIRING_OP_STATES,
  ]);
  const deleted = (
    await db.query<{ turn_id: string }>(
      `DELETE FROM turns WHERE ${TERMINAL} AND updated_at <= $1 AND NOT EXISTS (SELECT 1 FROM ops WHERE ops.turn_id = turns.turn_id) RETURNING turn_id`,
      [ledgerCutoff],
    )
  ).rows;

  const deletedBlobs = await collectBlobs(db);
  const turnIds = [...new Set([...expired, ...tombstoned, ...deleted].map((row) => row.turn_id))];
  return {
    expiredTurns: expired.length,
    tombstonedTurns: tombstoned.length,
    deletedOps: deletedOps.rowCount ?? 0,
    deletedTurns: deleted.length,
    deletedBlobs,
    abandonedReplies: abandoned.rowCount ?? 0,
    turnIds,
  };
}

/**
 * Deletes the blobs no row refers to any more. A blob a write in progress is storing again is
 * locked by that write and skipped: it is about to be referred to.
 */
async function collectBlobs(db: PgQueryable): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM blobs WHERE digest IN (
       SELECT digest FROM blobs AS unreferenced
       WHERE NOT EXISTS (SELECT 1 FROM blob_refs WHERE blob_refs.digest = unreferenced.digest)
         AND NOT EXISTS (SELECT 1 FROM history_blob_refs WHERE history_blob_refs.digest = unreferenced.digest)
       FOR UPDATE SKIP LOCKED)`,
  );
  return rowCount ?? 0;
}
