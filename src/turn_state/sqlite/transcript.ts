import type { Database } from 'better-sqlite3';
import type { Message } from '../../llm/protocol.js';
import type { BlobStore } from '../blob_store.js';
import { decodedPart } from '../errors.js';
import { statement } from './statements.js';
import { decodeMessage, encodeMessage } from '../stored_message.js';
import { CHECKPOINTS_KEPT } from '../turn_store.js';
import type { CheckpointRecord } from '../turn_types.js';

/**
 * The append-only transcript and the checkpoints over it (DESIGN §7.4). Writing costs the new
 * rows only: a checkpoint stores the loop state and the transcript length it covers, never the
 * transcript itself. Every write runs inside the caller's write transaction.
 */
export class SqliteTranscript {
  constructor(
    private readonly db: Database,
    private readonly blobs: BlobStore,
  ) {}

  /** Appends rows after the last one; returns the transcript length after them. */
  append(turnId: string, messages: readonly Message[]): number {
    let length = this.length(turnId);
    const insert = statement(this.db, 'INSERT INTO transcript (turn_id, seq, message) VALUES (?, ?, ?)');
    const reference = statement(this.db, `INSERT OR IGNORE INTO blob_refs (turn_id, digest, owner) VALUES (?, ?, 'transcript')`);
    for (const message of messages) {
      const { json, digests } = encodeMessage(message, this.blobs);
      for (const digest of digests) reference.run(turnId, digest);
      insert.run(turnId, length, json);
      length += 1;
    }
    return length;
  }

  /** Writes a checkpoint covering the first `transcriptLength` rows, dropping the oldest beyond {@link CHECKPOINTS_KEPT}. */
  checkpoint(turnId: string, transcriptLength: number, state: unknown, now: number): void {
    const { last } = statement(this.db, 'SELECT COALESCE(MAX(seq), 0) AS last FROM checkpoints WHERE turn_id = ?').get(turnId) as { last: number };
    statement(this.db, 'INSERT INTO checkpoints (turn_id, seq, transcript_length, state, created_at) VALUES (?, ?, ?, ?, ?)').run(
      turnId,
      last + 1,
      transcriptLength,
      JSON.stringify(state),
      now,
    );
    statement(this.db, 'DELETE FROM checkpoints WHERE turn_id = ? AND seq <= ?').run(turnId, last + 1 - CHECKPOINTS_KEPT);
  }

  length(turnId: string): number {
    return (statement(this.db, 'SELECT COALESCE(MAX(seq) + 1, 0) AS n FROM transcript WHERE turn_id = ?').get(turnId) as { n: number }).n;
  }

  load(turnId: string): Message[] {
    const rows = statement(this.db, 'SELECT message FROM transcript WHERE turn_id = ? ORDER BY seq').all(turnId) as { message: string }[];
    return rows.map((row) => decodedPart(turnId, 'transcript', () => decodeMessage(row.message, this.blobs)));
  }

  latestCheckpoint(turnId: string): CheckpointRecord | undefined {
    const row = statement(this.db, 'SELECT seq, transcript_length, state, created_at FROM checkpoints WHERE turn_id = ? ORDER BY seq DESC LIMIT 1').get(turnId) as
      | { seq: number; transcript_length: number; state: string; created_at: number }
      | undefined;
    if (row === undefined) return undefined;
    return { seq: row.seq, transcriptLength: row.transcript_length, state: decodedPart(turnId, 'checkpoint', () => JSON.parse(row.state) as unknown), createdAt: row.created_at };
  }

  /** Drops the turn's transcript and checkpoints, and the blob references they held. */
  compact(turnId: string): void {
    statement(this.db, 'DELETE FROM transcript WHERE turn_id = ?').run(turnId);
    statement(this.db, 'DELETE FROM checkpoints WHERE turn_id = ?').run(turnId);
    statement(this.db, `DELETE FROM blob_refs WHERE turn_id = ? AND owner = 'transcript'`).run(turnId);
  }
}
