import type { Database } from 'better-sqlite3';
import type { InboundRecord, InboxEntry } from '../inbox_types.js';
import { statement } from './statements.js';

interface InboxRow {
  id: number;
  source: string;
  channel_id: string;
  message_id: string;
  message: string;
  accepted_at: number;
}

/**
 * Keeps `record` in the inbox and returns its id; a message already waiting keeps its place and
 * its id. Runs inside the caller's write transaction.
 */
export function acceptInbound(db: Database, record: InboundRecord, now: number): number {
  const { source, channelId, messageId } = record.identity;
  statement(db, 'INSERT INTO inbox (source, channel_id, message_id, message, accepted_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING').run(
    source,
    channelId,
    messageId,
    JSON.stringify(record.message),
    now,
  );
  return (statement(db, 'SELECT id FROM inbox WHERE source = ? AND channel_id = ? AND message_id = ?').get(source, channelId, messageId) as { id: number }).id;
}

/** The waiting messages of `source`, oldest first. */
export function listInbox(db: Database, source: string): InboxEntry[] {
  const rows = statement(db, 'SELECT * FROM inbox WHERE source = ? ORDER BY id').all(source) as InboxRow[];
  return rows.map((row) => ({
    id: row.id,
    identity: { source: row.source, channelId: row.channel_id, messageId: row.message_id },
    message: parsedOrNull(row.message),
    acceptedAt: row.accepted_at,
  }));
}

/** Takes a message out of the inbox; one already taken is left as it is. */
export function dropInbound(db: Database, id: number): void {
  statement(db, 'DELETE FROM inbox WHERE id = ?').run(id);
}

/** A row's message, or `null` when it is not JSON: the conversation refuses it like any message it cannot read. */
function parsedOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
