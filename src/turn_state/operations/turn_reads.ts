import { turnFromRow, type TurnRow } from '../turn_rows.js';
import type { TurnIdentity, TurnRecord } from '../turn_types.js';
import { dialect, query, queryOne, type Op, type Params } from './instructions.js';

/** A conversation: a transport and one of its channels. */
export interface ChannelRef {
  readonly source: string;
  readonly channelId: string;
}

function* oneTurn(sql: string, params: Params): Op<TurnRecord | undefined> {
  const row = yield* queryOne<TurnRow>(sql, params);
  return row === undefined ? undefined : turnFromRow(row);
}

/** The turns a statement selects, in its order. */
export function* turnsWhere(sql: string, params: Params): Op<TurnRecord[]> {
  return (yield* query<TurnRow>(sql, params)).rows.map(turnFromRow);
}

export function turnById(turnId: string): Op<TurnRecord | undefined> {
  return oneTurn('SELECT * FROM turns WHERE turn_id = @turnId', { turnId });
}

/** The turn answering a message, if it was admitted. */
export function turnOfMessage(identity: TurnIdentity): Op<TurnRecord | undefined> {
  return oneTurn('SELECT * FROM turns WHERE source = @source AND channel_id = @channelId AND message_id = @messageId', { ...identity });
}

/** A turn read back inside the transaction that wrote it: it cannot be missing. */
export function* requireTurn(turnId: string): Op<TurnRecord> {
  const turn = yield* turnById(turnId);
  if (turn === undefined) throw new Error(`turn ${turnId} vanished inside its own transaction`);
  return turn;
}

/** A channel's suspended turns, newest first. */
export function* suspendedTurnsIn(channel: ChannelRef): Op<TurnRecord[]> {
  const { admissionOrder } = yield* dialect();
  return yield* turnsWhere(`SELECT * FROM turns WHERE source = @source AND channel_id = @channelId AND status = 'SUSPENDED' ORDER BY created_at DESC, ${admissionOrder} DESC`, { ...channel });
}

/** The newest turn a requester started in a channel, whatever its status. */
export function* latestTurnIn(channel: ChannelRef, requesterId: string): Op<TurnRecord | undefined> {
  const { admissionOrder } = yield* dialect();
  return yield* oneTurn(`SELECT * FROM turns WHERE source = @source AND channel_id = @channelId AND requester_id = @requesterId ORDER BY created_at DESC, ${admissionOrder} DESC LIMIT 1`, {
    ...channel,
    requesterId,
  });
}

/** Turns whose id starts with `prefix`, at most `limit` of them: a unique prefix names one turn. */
export function turnsWithPrefix(prefix: string, limit: number): Op<TurnRecord[]> {
  return turnsWhere('SELECT * FROM turns WHERE substr(turn_id, 1, length(CAST(@prefix AS TEXT))) = @prefix ORDER BY turn_id LIMIT @limit', { prefix, limit });
}
