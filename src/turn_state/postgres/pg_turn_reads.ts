import { turnFromRow, type TurnRow } from '../turn_rows.js';
import type { TurnIdentity, TurnRecord } from '../turn_types.js';
import type { PgQueryable } from './pg_pool.js';

/** A conversation: a transport and one of its channels. */
export interface ChannelRef {
  readonly source: string;
  readonly channelId: string;
}

async function oneTurn(db: PgQueryable, text: string, values: readonly unknown[]): Promise<TurnRecord | undefined> {
  const { rows } = await db.query<TurnRow>(text, [...values]);
  const row = rows[0];
  return row === undefined ? undefined : turnFromRow(row);
}

/** The turn answering a message, if it was admitted. */
export function turnOfMessage(db: PgQueryable, identity: TurnIdentity): Promise<TurnRecord | undefined> {
  return oneTurn(db, 'SELECT * FROM turns WHERE source = $1 AND channel_id = $2 AND message_id = $3', [identity.source, identity.channelId, identity.messageId]);
}

export function turnById(db: PgQueryable, turnId: string): Promise<TurnRecord | undefined> {
  return oneTurn(db, 'SELECT * FROM turns WHERE turn_id = $1', [turnId]);
}

/** A turn read back inside the transaction that wrote it: it cannot be missing. */
export async function requireTurn(db: PgQueryable, turnId: string): Promise<TurnRecord> {
  const turn = await turnById(db, turnId);
  if (turn === undefined) throw new Error(`turn ${turnId} vanished inside its own transaction`);
  return turn;
}

/** A channel's suspended turns, newest first. */
export async function suspendedTurnsIn(db: PgQueryable, channel: ChannelRef): Promise<TurnRecord[]> {
  const { rows } = await db.query<TurnRow>(`SELECT * FROM turns WHERE source = $1 AND channel_id = $2 AND status = 'SUSPENDED' ORDER BY created_at DESC, admitted DESC`, [
    channel.source,
    channel.channelId,
  ]);
  return rows.map(turnFromRow);
}

/** The newest turn a requester started in a channel, whatever its status. */
export function latestTurnIn(db: PgQueryable, channel: ChannelRef, requesterId: string): Promise<TurnRecord | undefined> {
  return oneTurn(db, 'SELECT * FROM turns WHERE source = $1 AND channel_id = $2 AND requester_id = $3 ORDER BY created_at DESC, admitted DESC LIMIT 1', [
    channel.source,
    channel.channelId,
    requesterId,
  ]);
}
