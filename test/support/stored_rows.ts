import BetterSqlite3 from 'better-sqlite3';
import type { ReplyRecord } from '../../src/turn_state/reply_types.js';
import { SqliteReplies } from '../../src/turn_state/sqlite/replies.js';
import { findTurnRow } from '../../src/turn_state/sqlite/turn_reads.js';
import type { TurnIdentity, TurnRecord } from '../../src/turn_state/turn_types.js';

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
  return reading(dbPath, (db) => findTurnRow(db, identity));
}

/** The final reply the store file holds for a turn, decoded as the store decodes it. */
export function storedReply(dbPath: string, turnId: string): ReplyRecord | undefined {
  return reading(dbPath, (db) => new SqliteReplies(db).get(turnId));
}
