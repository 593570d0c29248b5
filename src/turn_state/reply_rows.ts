import type { PendingReply, ReplyAuthor } from './reply_types.js';
import type { TurnRecord } from './turn_types.js';

/** The columns of a pending reply read beside its turn's, named apart from the turn's own. */
export const PENDING_REPLY_COLUMNS =
  'replies.text AS reply_text, replies.parts_delivered AS reply_parts_delivered, replies.written_by_model AS reply_written_by_model, replies.written_by_fallback AS reply_written_by_fallback';

/** What {@link PENDING_REPLY_COLUMNS} reads, as either database returns it. */
export interface PendingReplyRow {
  reply_text: string;
  reply_parts_delivered: number;
  reply_written_by_model: string | null;
  reply_written_by_fallback: number;
}

/** The columns a reply's author is stored in: no model when it is not known (a reply stored before it was kept). */
export function authorColumns(writtenBy: ReplyAuthor | undefined): { readonly model: string | null; readonly fallback: 0 | 1 } {
  return writtenBy === undefined ? { model: null, fallback: 0 } : { model: writtenBy.model, fallback: writtenBy.fallback ? 1 : 0 };
}

/** A pending reply of `turn` from its row. */
export function pendingReplyFromRow(turn: TurnRecord, row: PendingReplyRow): PendingReply {
  const reply = { turn, text: row.reply_text, partsDelivered: row.reply_parts_delivered };
  return row.reply_written_by_model === null ? reply : { ...reply, writtenBy: { model: row.reply_written_by_model, fallback: row.reply_written_by_fallback === 1 } };
}
