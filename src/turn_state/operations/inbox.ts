/**
 * The inbox (DESIGN §8.1): a message accepted into its channel's queue is kept here until its
 * turn starts, and taken out in the transaction that admits it.
 */
import type { InboundRecord, InboxEntry } from '../inbox_types.js';
import { now, query, queryOne, type Op } from './instructions.js';

interface InboxRow {
  id: number;
  source: string;
  channel_id: string;
  message_id: string;
  message: string;
  accepted_at: number;
}

/**
 * Keeps `record` in the inbox, accepted now, and answers its id; a message already waiting keeps
 * its place and its id. Of several processes accepting the same message, one inserts it and the
 * others find it.
 */
export function* acceptInbound(record: InboundRecord): Op<number> {
  const identity = { ...record.identity };
  const inserted = yield* queryOne<{ id: number }>(
    `INSERT INTO inbox (source, channel_id, message_id, message, accepted_at) VALUES (@source, @channelId, @messageId, @message, @now)
     ON CONFLICT (source, channel_id, message_id) DO NOTHING RETURNING id`,
    { ...identity, message: JSON.stringify(record.message), now: yield* now() },
  );
  const existing = inserted ?? (yield* queryOne<{ id: number }>('SELECT id FROM inbox WHERE source = @source AND channel_id = @channelId AND message_id = @messageId', identity));
  if (existing === undefined) throw new Error(`inbox message ${identity.source}/${identity.channelId}/${identity.messageId} was taken out while it was being accepted`);
  return existing.id;
}

/** The waiting messages of `source`, oldest first. */
export function* listInbox(source: string): Op<InboxEntry[]> {
  const { rows } = yield* query<InboxRow>('SELECT * FROM inbox WHERE source = @source ORDER BY id', { source });
  return rows.map((row) => ({
    id: row.id,
    identity: { source: row.source, channelId: row.channel_id, messageId: row.message_id },
    message: parsedOrNull(row.message),
    acceptedAt: row.accepted_at,
  }));
}

/** Takes a message out of the inbox; one already taken is left as it is. */
export function* dropInbound(id: number): Op<void> {
  yield* query('DELETE FROM inbox WHERE id = @id', { id });
}

/** A row's message, or `null` when it is not JSON: the conversation refuses it like any message it cannot read. */
function parsedOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
