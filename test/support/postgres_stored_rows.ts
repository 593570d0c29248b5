import type { PgQueryable } from '../../src/turn_state/postgres/pg_pool.js';
import { turnFromRow, type TurnRow } from '../../src/turn_state/turn_rows.js';
import type { TurnIdentity, TurnRecord } from '../../src/turn_state/turn_types.js';
import type { StoredReply } from './stored_rows.js';

interface ReplyRow {
  readonly turn_id: string;
  readonly state: StoredReply['state'];
  readonly text: string | null;
  readonly parts_delivered: number;
  readonly created_at: number;
  readonly delivered_at: number | null;
  readonly failure: string | null;
}

/** The turn a PostgreSQL store's schema holds for a message, read with SQL on `db` (a pool of its own, beside the store's). */
export async function pgStoredTurn(db: PgQueryable, identity: TurnIdentity): Promise<TurnRecord | undefined> {
  const { rows } = await db.query<TurnRow>('SELECT * FROM turns WHERE source = $1 AND channel_id = $2 AND message_id = $3', [identity.source, identity.channelId, identity.messageId]);
  const row = rows[0];
  return row === undefined ? undefined : turnFromRow(row);
}

/** The final reply a PostgreSQL store's schema holds for a turn, as {@link StoredReply}. */
export async function pgStoredReply(db: PgQueryable, turnId: string): Promise<StoredReply | undefined> {
  const { rows } = await db.query<ReplyRow>('SELECT * FROM replies WHERE turn_id = $1', [turnId]);
  const row = rows[0];
  if (row === undefined) return undefined;
  return { turnId: row.turn_id, state: row.state, text: row.text, partsDelivered: row.parts_delivered, createdAt: row.created_at, deliveredAt: row.delivered_at, failure: row.failure };
}
