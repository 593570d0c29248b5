import { assertNever } from '../../core/assert_never.js';
import type { PendingReply, ReplyAuthor, ReplyProgress } from '../reply_types.js';
import { authorColumns, PENDING_REPLY_COLUMNS, pendingReplyFromRow, type PendingReplyRow } from '../reply_rows.js';
import { turnFromRow, type TurnRow } from '../turn_rows.js';
import type { PgQueryable } from './pg_pool.js';

/**
 * Stores a completed turn's reply as pending, inside the transaction that ends the turn, before
 * the transport is asked to post it.
 */
export async function storeReply(db: PgQueryable, turnId: string, text: string, writtenBy: ReplyAuthor | undefined, now: number): Promise<void> {
  const { model, fallback } = authorColumns(writtenBy);
  await db.query(`INSERT INTO replies (turn_id, state, text, written_by_model, written_by_fallback, created_at, updated_at) VALUES ($1, 'pending', $2, $3, $4, $5, $5)`, [
    turnId,
    text,
    model,
    fallback,
    now,
  ]);
}

/**
 * Records a step of a pending reply's delivery at the database's time; confirmed parts only ever
 * grow. A reply that is not pending (already delivered or abandoned, or never stored) is left as
 * it is.
 */
export async function recordReplyDelivery(db: PgQueryable, turnId: string, progress: ReplyProgress): Promise<void> {
  switch (progress.kind) {
    case 'parts_delivered':
      await db.query(`UPDATE replies SET parts_delivered = GREATEST(parts_delivered, $2), updated_at = now_ms() WHERE turn_id = $1 AND state = 'pending'`, [
        turnId,
        progress.partsDelivered,
      ]);
      return;
    case 'delivered':
      await db.query(`UPDATE replies SET state = 'delivered', text = NULL, delivered_at = clock.now, updated_at = clock.now
         FROM (SELECT now_ms() AS now) AS clock WHERE turn_id = $1 AND state = 'pending'`, [turnId]);
      return;
    case 'abandoned':
      await db.query(`UPDATE replies SET state = 'abandoned', text = NULL, failure = $2, updated_at = now_ms() WHERE turn_id = $1 AND state = 'pending'`, [turnId, progress.reason]);
      return;
    default:
      return assertNever(progress);
  }
}

/** Pending replies with their turns, oldest first, so that a channel gets them in the order they were written. */
export async function pendingReplies(db: PgQueryable): Promise<PendingReply[]> {
  const { rows } = await db.query<TurnRow & PendingReplyRow>(
    `SELECT turns.*, ${PENDING_REPLY_COLUMNS} FROM replies JOIN turns USING (turn_id) WHERE replies.state = 'pending' ORDER BY replies.created_at, turns.admitted`,
  );
  return rows.map((row) => pendingReplyFromRow(turnFromRow(row), row));
}
