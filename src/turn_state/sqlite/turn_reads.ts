import type { Database } from 'better-sqlite3';
import { turnFromRow, type TurnRow } from '../turn_rows.js';
import { statement } from './statements.js';
import type { TurnIdentity, TurnRecord } from '../turn_types.js';

/** A conversation: a transport and one of its channels. */
export interface ChannelRef {
  readonly source: string;
  readonly channelId: string;
}

/** The turn answering a message, if it was admitted. */
export function findTurnRow(db: Database, identity: TurnIdentity): TurnRecord | undefined {
  const row = statement(db, 'SELECT * FROM turns WHERE source = ? AND channel_id = ? AND message_id = ?').get(identity.source, identity.channelId, identity.messageId) as
    | TurnRow
    | undefined;
  return row === undefined ? undefined : turnFromRow(row);
}

export function turnById(db: Database, turnId: string): TurnRecord | undefined {
  const row = statement(db, 'SELECT * FROM turns WHERE turn_id = ?').get(turnId) as TurnRow | undefined;
  return row === undefined ? undefined : turnFromRow(row);
}

/** A turn read back inside the transaction that wrote it: it cannot be missing. */
export function requireTurn(db: Database, turnId: string): TurnRecord {
  const turn = turnById(db, turnId);
  if (turn === undefined) throw new Error(`turn ${turnId} vanished inside its own transaction`);
  return turn;
}

/** A channel's suspended turns, newest first. */
export function suspendedTurnsIn(db: Database, channel: ChannelRef): TurnRecord[] {
  const rows = statement(db, `SELECT * FROM turns WHERE source = ? AND channel_id = ? AND status = 'SUSPENDED' ORDER BY created_at DESC, rowid DESC`).all(
    channel.source,
    channel.channelId,
  ) as TurnRow[];
  return rows.map(turnFromRow);
}

/** The newest turn a requester started in a channel, whatever its status. */
export function latestTurnIn(db: Database, channel: ChannelRef, requesterId: string): TurnRecord | undefined {
  const row = statement(db, 'SELECT * FROM turns WHERE source = ? AND channel_id = ? AND requester_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1').get(
    channel.source,
    channel.channelId,
    requesterId,
  ) as TurnRow | undefined;
  return row === undefined ? undefined : turnFromRow(row);
}
