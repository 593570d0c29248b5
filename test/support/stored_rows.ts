import BetterSqlite3 from 'better-sqlite3';
import type { ReplyState } from '../../src/turn_state/reply_types.js';
import { turnFromRow, type TurnRow } from '../../src/turn_state/turn_rows.js';
import type { TurnIdentity, TurnRecord } from '../../src/turn_state/turn_types.js';

/** A turn's final reply as the store file holds it. Times are wall-clock epoch milliseconds. */
export interface StoredReply {
  readonly turnId: string;
  readonly state: ReplyState;
  /** The reply's text while it is pending; `null` once delivered or abandoned. */
  readonly text: string | null;
  /** How many parts of it the transport has confirmed. */
  readonly partsDelivered: number;
  readonly createdAt: number;
  /** When the transport confirmed the last part; `null` until then. */
  readonly deliveredAt: number | null;
  /** Why an abandoned reply was given up. */
  readonly failure: string | null;
}

interface ReplyRow {
  readonly turn_id: string;
  readonly state: ReplyState;
  readonly text: string | null;
  readonly parts_delivered: number;
  readonly created_at: number;
  readonly delivered_at: number | null;
  readonly failure: string | null;
}

/** `read` on a read-only connection of its own to the store file at `dbPath`, beside the bot's. */
function reading<T>(dbPath: string, read: (db: BetterSqlite3.Database) => T): T {
  const db = new BetterSqlite3(dbPath, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** The turn the store file holds for a message, decoded as the store decodes it. */
export function storedTurn(dbPath: string, identity: TurnIdentity): TurnRecord | undefined {
  return reading(dbPath, (db) => {
    const row = db.prepare('SELECT * FROM turns WHERE source = ? AND channel_id = ? AND message_id = ?').get(identity.source, identity.channelId, identity.messageId) as TurnRow | undefined;
    return row === undefined ? undefined : turnFromRow(row);
  });
}

/** The final reply the store file holds for a turn. */
export function storedReply(dbPath: string, turnId: string): StoredReply | undefined {
  const row = reading(dbPath, (db) => db.prepare('SELECT * FROM replies WHERE turn_id = ?').get(turnId) as ReplyRow | undefined);
  if (row === undefined) return undefined;
  return { turnId: row.turn_id, state: row.state, text: row.text, partsDelivered: row.parts_delivered, createdAt: row.created_at, deliveredAt: row.delivered_at, failure: row.failure };
}
