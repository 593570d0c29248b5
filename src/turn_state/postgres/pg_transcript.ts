import type { Message } from '../../llm/protocol.js';
import { decodedPart } from '../errors.js';
import { decodeMessage, encodeMessage } from '../stored_message.js';
import { CHECKPOINTS_KEPT } from '../turn_store.js';
import type { CheckpointRecord } from '../turn_types.js';
import { loadBlobs, PendingBlobs } from './pg_blobs.js';
import type { PgQueryable } from './pg_pool.js';

/**
 * Appends transcript rows after the last one, inside the caller's write transaction, the blobs
 * they refer to stored first; returns the transcript length after them.
 */
export async function appendTranscript(db: PgQueryable, turnId: string, messages: readonly Message[]): Promise<number> {
  let length = await transcriptLength(db, turnId);
  if (messages.length === 0) return length;
  const blobs = new PendingBlobs();
  const rows = messages.map((message) => encodeMessage(message, blobs));
  await blobs.writeTo(db);
  for (const { json, digests } of rows) {
    for (const digest of digests) {
      await db.query(`INSERT INTO blob_refs (turn_id, digest, owner) VALUES ($1, $2, 'transcript') ON CONFLICT DO NOTHING`, [turnId, digest]);
    }
    await db.query('INSERT INTO transcript (turn_id, seq, message) VALUES ($1, $2, $3)', [turnId, length, json]);
    length += 1;
  }
  return length;
}

/** Writes a checkpoint covering the first `length` rows, dropping the oldest beyond {@link CHECKPOINTS_KEPT}. */
export async function writeCheckpoint(db: PgQueryable, turnId: string, length: number, state: unknown, now: number): Promise<void> {
  const { rows } = await db.query<{ last: number }>('SELECT COALESCE(MAX(seq), 0) AS last FROM checkpoints WHERE turn_id = $1', [turnId]);
  const seq = (rows[0]?.last ?? 0) + 1;
  await db.query('INSERT INTO checkpoints (turn_id, seq, transcript_length, state, created_at) VALUES ($1, $2, $3, $4, $5)', [turnId, seq, length, JSON.stringify(state), now]);
  await db.query('DELETE FROM checkpoints WHERE turn_id = $1 AND seq <= $2', [turnId, seq - CHECKPOINTS_KEPT]);
}

async function transcriptLength(db: PgQueryable, turnId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT COALESCE(MAX(seq) + 1, 0) AS n FROM transcript WHERE turn_id = $1', [turnId]);
  return rows[0]?.n ?? 0;
}

/** A turn's whole transcript in order, images and large results read back from their blobs. */
export async function loadTranscript(db: PgQueryable, turnId: string): Promise<Message[]> {
  const { rows } = await db.query<{ message: string }>('SELECT message FROM transcript WHERE turn_id = $1 ORDER BY seq', [turnId]);
  if (rows.length === 0) return [];
  const blobs = await loadBlobs(db, `SELECT blobs.digest, blobs.bytes FROM blobs JOIN blob_refs USING (digest) WHERE blob_refs.turn_id = $1 AND blob_refs.owner = 'transcript'`, [
    turnId,
  ]);
  return rows.map((row) => decodedPart(turnId, 'transcript', () => decodeMessage(row.message, blobs)));
}

interface CheckpointRow {
  seq: number;
  transcript_length: number;
  state: string;
  created_at: number;
}

/** The newest of a turn's checkpoints, or `undefined` when it has none (a terminal turn's were dropped). */
export async function latestCheckpoint(db: PgQueryable, turnId: string): Promise<CheckpointRecord | undefined> {
  const { rows } = await db.query<CheckpointRow>('SELECT seq, transcript_length, state, created_at FROM checkpoints WHERE turn_id = $1 ORDER BY seq DESC LIMIT 1', [turnId]);
  const row = rows[0];
  if (row === undefined) return undefined;
  return { seq: row.seq, transcriptLength: row.transcript_length, state: decodedPart(turnId, 'checkpoint', () => JSON.parse(row.state) as unknown), createdAt: row.created_at };
}

/** Drops the turn's transcript and checkpoints, and the blob references they held. */
export async function compactTranscript(db: PgQueryable, turnId: string): Promise<void> {
  await db.query('DELETE FROM transcript WHERE turn_id = $1', [turnId]);
  await db.query('DELETE FROM checkpoints WHERE turn_id = $1', [turnId]);
  await db.query(`DELETE FROM blob_refs WHERE turn_id = $1 AND owner = 'transcript'`, [turnId]);
}
