import type { InboundRecord, InboxEntry } from '../inbox_types.js';
import type { PgQueryable } from './pg_pool.js';

interface InboxRow {
  id: number;
  source: string;
  channel_id: string;
  message_id: string;
  message: string;
  accepted_at: number;
}

const BY_IDENTITY = 'source = $1 AND channel_id = $2 AND message_id = $3';

/**
 * Keeps `record` in the inbox, accepted now by the database's clock, and returns its id; a message
 * already waiting keeps its place and its id. Runs inside the caller's write transaction: of
 * several processes accepting the same message, one inserts it and the others find it.
 */
export async function acceptInbound(db: PgQueryable, record: InboundRecord): Promise<number> {
  const { source, channelId, messageId } = record.identity;
  const identity = [source, channelId, messageId];
  const inserted = await db.query<{ id: number }>(
    `INSERT INTO inbox (source, channel_id, message_id, message, accepted_at) VALUES ($1, $2, $3, $4, now_ms()) ON CONFLICT (source, channel_id, message_id) DO NOTHING RETURNING id`,
    [...identity, JSON.stringify(record.message)],
  );
  const existing = inserted.rows[0] ?? (await db.query<{ id: number }>(`SELECT id FROM inbox WHERE ${BY_IDENTITY}`, identity)).rows[0];
  if (existing === undefined) throw new Error(`inbox message ${source}/${channelId}/${messageId} was taken out while it was being accepted`);
  return existing.id;
}

/** The waiting messages of `source`, oldest first. */
export async function listInbox(db: PgQueryable, source: string): Promise<InboxEntry[]> {
  const { rows } = await db.query<InboxRow>('SELECT * FROM inbox WHERE source = $1 ORDER BY id', [source]);
  return rows.map((row) => ({
    id: row.id,
    identity: { source: row.source, channelId: row.channel_id, messageId: row.message_id },
    message: parsedOrNull(row.message),
    acceptedAt: row.accepted_at,
  }));
}

/** Takes a message out of the inbox; one already taken is left as it is. */
export async function dropInbound(db: PgQueryable, id: number): Promise<void> {
  await db.query('DELETE FROM inbox WHERE id = $1', [id]);
}

/** A row's message, or `null` when it is not JSON: the conversation refuses it like any message it cannot read. */
function parsedOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
