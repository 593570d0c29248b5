import type { Database } from 'better-sqlite3';
import type { PendingReply, ReplyAuthor, ReplyProgress } from '../reply_types.js';
import { authorColumns, PENDING_REPLY_COLUMNS, pendingReplyFromRow, type PendingReplyRow } from '../reply_rows.js';
import { statement } from './statements.js';
import { turnFromRow, type TurnRow } from '../turn_rows.js';
import { assertNever } from '../../core/assert_never.js';

/**
 * The outbox of final replies: a completed turn's reply is stored in the transaction that ends
 * the turn, before the transport is asked to post it, and keeps its text only until the transport
 * confirms it. Every write runs inside the caller's write transaction.
 */
export class SqliteReplies {
  constructor(private readonly db: Database) {}

  /** Stores a completed turn's reply as pending. */
  store(turnId: string, text: string, writtenBy: ReplyAuthor | undefined, now: number): void {
    statement(
      this.db,
      `INSERT INTO replies (turn_id, state, text, written_by_model, written_by_fallback, created_at, updated_at) VALUES (@turnId, 'pending', @text, @model, @fallback, @now, @now)`,
    ).run({ turnId, text, ...authorColumns(writtenBy), now });
  }

  /**
   * Records a step of a pending reply's delivery; confirmed parts only ever grow. A reply that is
   * not pending (already delivered or abandoned, or never stored) is left as it is.
   */
  record(turnId: string, progress: ReplyProgress, now: number): void {
    switch (progress.kind) {
      case 'parts_delivered':
        statement(this.db, `UPDATE replies SET parts_delivered = MAX(parts_delivered, ?), updated_at = ? WHERE turn_id = ? AND state = 'pending'`).run(
          progress.partsDelivered,
          now,
          turnId,
        );
        return;
      case 'delivered':
        statement(this.db, `UPDATE replies SET state = 'delivered', text = NULL, delivered_at = @now, updated_at = @now WHERE turn_id = @turnId AND state = 'pending'`).run({
          turnId,
          now,
        });
        return;
      case 'abandoned':
        statement(this.db, `UPDATE replies SET state = 'abandoned', text = NULL, failure = @reason, updated_at = @now WHERE turn_id = @turnId AND state = 'pending'`).run({
          turnId,
          reason: progress.reason,
          now,
        });
        return;
      default:
        return assertNever(progress);
    }
  }

  /** Pending replies with their turns, oldest first, so that a channel gets them in the order they were written. */
  pending(): PendingReply[] {
    const rows = statement(
      this.db,
      `SELECT turns.*, ${PENDING_REPLY_COLUMNS} FROM replies JOIN turns USING (turn_id) WHERE replies.state = 'pending' ORDER BY replies.created_at, turns.rowid`,
    ).all() as (TurnRow & PendingReplyRow)[];
    return rows.map((row) => pendingReplyFromRow(turnFromRow(row), row));
  }
}
