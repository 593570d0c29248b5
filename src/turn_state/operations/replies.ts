/**
 * The outbox of final replies: a completed turn's reply is stored in the transaction that ends the
 * turn, before the transport is asked to post it, and keeps its text only until the transport
 * confirms it.
 */
import { assertNever } from '../../core/assert_never.js';
import type { ReplyDelivery } from '../operator_store.js';
import type { PendingReply, ReplyAuthor, ReplyProgress, ReplyState } from '../reply_types.js';
import { turnFromRow, type TurnRow } from '../turn_rows.js';
import { dialect, now, query, queryOne, type Op } from './instructions.js';

/** What a pending reply's columns hold beside its turn's, named apart from the turn's own. */
interface PendingReplyRow {
  reply_text: string;
  reply_parts_delivered: number;
  reply_written_by_model: string | null;
  reply_written_by_fallback: number;
}

/** Stores a completed turn's reply as pending, with the model that wrote it when the bot has fallback models. */
export function* storeReply(turnId: string, text: string, writtenBy: ReplyAuthor | undefined, at: number): Op<void> {
  yield* query(`INSERT INTO replies (turn_id, state, text, written_by_model, written_by_fallback, created_at, updated_at) VALUES (@turnId, 'pending', @text, @model, @fallback, @now, @now)`, {
    turnId,
    text,
    model: writtenBy?.model ?? null,
    fallback: writtenBy?.fallback === true ? 1 : 0,
    now: at,
  });
}

/**
 * Records a step of a pending reply's delivery; confirmed parts only ever grow. A reply that is not
 * pending (already delivered or abandoned, or never stored) is left as it is.
 */
export function* recordReplyDelivery(turnId: string, progress: ReplyProgress): Op<void> {
  const at = yield* now();
  switch (progress.kind) {
    case 'parts_delivered': {
      const { greatest } = yield* dialect();
      yield* query(`UPDATE replies SET parts_delivered = ${greatest('parts_delivered', '@parts')}, updated_at = @now WHERE turn_id = @turnId AND state = 'pending'`, {
        turnId,
        parts: progress.partsDelivered,
        now: at,
      });
      return;
    }
    case 'delivered': {
      const { greatest } = yield* dialect();
      yield* query(
        `UPDATE replies SET state = 'delivered', text = NULL, parts_delivered = ${greatest('parts_delivered', '@parts')}, delivered_at = @now, updated_at = @now
         WHERE turn_id = @turnId AND state = 'pending'`,
        { turnId, parts: progress.partsDelivered, now: at },
      );
      return;
    }
    case 'abandoned':
      yield* query(`UPDATE replies SET state = 'abandoned', text = NULL, failure = @reason, updated_at = @now WHERE turn_id = @turnId AND state = 'pending'`, {
        turnId,
        reason: progress.reason,
        now: at,
      });
      return;
    default:
      return assertNever(progress);
  }
}

/** Pending replies with their turns, oldest first, so that a channel gets them in the order they were written. */
export function* pendingReplies(): Op<PendingReply[]> {
  const { admissionOrder } = yield* dialect();
  const { rows } = yield* query<TurnRow & PendingReplyRow>(
    `SELECT turns.*, replies.text AS reply_text, replies.parts_delivered AS reply_parts_delivered, replies.written_by_model AS reply_written_by_model,
       replies.written_by_fallback AS reply_written_by_fallback
     FROM replies JOIN turns USING (turn_id) WHERE replies.state = 'pending' ORDER BY replies.created_at, turns.${admissionOrder}`,
  );
  return rows.map((row) => {
    const reply = { turn: turnFromRow(row), text: row.reply_text, partsDelivered: row.reply_parts_delivered };
    return row.reply_written_by_model === null ? reply : { ...reply, writtenBy: { model: row.reply_written_by_model, fallback: row.reply_written_by_fallback === 1 } };
  });
}

/** A reply's delivery, as operators see it; `null` when the turn has no reply. */
export function* replyDelivery(turnId: string): Op<ReplyDelivery | null> {
  const row = yield* queryOne<{ state: ReplyState; parts_delivered: number; created_at: number; delivered_at: number | null; failure: string | null }>(
    'SELECT state, parts_delivered, created_at, delivered_at, failure FROM replies WHERE turn_id = @turnId',
    { turnId },
  );
  return row === undefined ? null : { state: row.state, partsDelivered: row.parts_delivered, createdAt: row.created_at, deliveredAt: row.delivered_at, failure: row.failure };
}
