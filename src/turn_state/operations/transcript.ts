/**
 * The append-only transcript and the checkpoints over it (DESIGN §7.4). Writing costs the new
 * rows only: a checkpoint stores the loop state and the transcript length it covers, never the
 * transcript itself. Images and large tool results live in blobs, stored before the rows that
 * refer to them.
 */
import type { Message } from '../../llm/protocol.js';
import { decodedPart } from '../errors.js';
import { decodeMessage, encodeMessage } from '../stored_message.js';
import { CHECKPOINTS_KEPT } from '../turn_store.js';
import type { CheckpointMark } from '../operator_store.js';
import type { CheckpointRecord } from '../turn_types.js';
import { query, queryOne, requiredBlobSink, requiredBlobSource, type Op } from './instructions.js';

/** Appends rows after the last one; answers the transcript length after them. */
export function* appendTranscript(turnId: string, messages: readonly Message[]): Op<number> {
  let length = yield* transcriptLength(turnId);
  if (messages.length === 0) return length;
  const blobs = yield* requiredBlobSink();
  for (const message of messages) {
    const { json, digests } = encodeMessage(message, blobs);
    for (const digest of digests) yield* query(`INSERT INTO blob_refs (turn_id, digest, owner) VALUES (@turnId, @digest, 'transcript') ON CONFLICT DO NOTHING`, { turnId, digest });
    yield* query('INSERT INTO transcript (turn_id, seq, message) VALUES (@turnId, @seq, @json)', { turnId, seq: length, json });
    length += 1;
  }
  return length;
}

/** Writes a checkpoint covering the first `length` rows, dropping the oldest beyond {@link CHECKPOINTS_KEPT}. */
export function* writeCheckpoint(turnId: string, length: number, state: unknown, now: number): Op<void> {
  const last = (yield* queryOne<{ last: number }>('SELECT COALESCE(MAX(seq), 0) AS last FROM checkpoints WHERE turn_id = @turnId', { turnId }))?.last ?? 0;
  yield* query('INSERT INTO checkpoints (turn_id, seq, transcript_length, state, created_at) VALUES (@turnId, @seq, @length, @state, @now)', {
    turnId,
    seq: last + 1,
    length,
    state: JSON.stringify(state),
    now,
  });
  yield* query('DELETE FROM checkpoints WHERE turn_id = @turnId AND seq <= @oldest', { turnId, oldest: last + 1 - CHECKPOINTS_KEPT });
}

function* transcriptLength(turnId: string): Op<number> {
  return (yield* queryOne<{ n: number }>('SELECT COALESCE(MAX(seq) + 1, 0) AS n FROM transcript WHERE turn_id = @turnId', { turnId }))?.n ?? 0;
}

/** A turn's whole transcript in order, images and large results read back from their blobs. */
export function* loadTranscript(turnId: string): Op<Message[]> {
  const { rows } = yield* query<{ message: string }>('SELECT message FROM transcript WHERE turn_id = @turnId ORDER BY seq', { turnId });
  if (rows.length === 0) return [];
  const blobs = yield* requiredBlobSource({ kind: 'turn', turnId, owner: 'transcript' });
  return rows.map((row) => decodedPart(turnId, 'transcript', () => decodeMessage(row.message, blobs)));
}

/** The newest of a turn's checkpoints, or `undefined` when it has none (a terminal turn's were dropped). */
export function* latestCheckpoint(turnId: string): Op<CheckpointRecord | undefined> {
  const row = yield* queryOne<{ seq: number; transcript_length: number; state: string; created_at: number }>(
    'SELECT seq, transcript_length, state, created_at FROM checkpoints WHERE turn_id = @turnId ORDER BY seq DESC LIMIT 1',
    { turnId },
  );
  if (row === undefined) return undefined;
  return { seq: row.seq, transcriptLength: row.transcript_length, state: decodedPart(turnId, 'checkpoint', () => JSON.parse(row.state) as unknown), createdAt: row.created_at };
}

/** The turn's checkpoints, oldest first, without their loop state. */
export function* checkpointMarks(turnId: string): Op<CheckpointMark[]> {
  const { rows } = yield* query<{ seq: number; transcript_length: number; created_at: number }>('SELECT seq, transcript_length, created_at FROM checkpoints WHERE turn_id = @turnId ORDER BY seq', {
    turnId,
  });
  return rows.map((row) => ({ seq: row.seq, transcriptLength: row.transcript_length, createdAt: row.created_at }));
}

/** Drops the turn's transcript and checkpoints, and the blob references they held. */
export function* compactTranscript(turnId: string): Op<void> {
  yield* query('DELETE FROM transcript WHERE turn_id = @turnId', { turnId });
  yield* query('DELETE FROM checkpoints WHERE turn_id = @turnId', { turnId });
  yield* query(`DELETE FROM blob_refs WHERE turn_id = @turnId AND owner = 'transcript'`, { turnId });
}
