/**
 * The conversation of each channel across turns (DESIGN §1), named by a key `${source}:${channelId}`.
 * Every change is one transaction that bumps the channel's revision exactly once, taking the
 * channel's row first, so that the writers of one channel, in any process, take turns.
 * Attachments' bytes live in blobs (inline in a store in memory).
 */
import { decodeAttachments, encodeAttachments } from '../history_attachments.js';
import type { ChannelHistory, HistoryCompaction, HistoryEntry, StoredHistoryEntry, StoredHistoryRole } from '../history_store.js';
import { blobSink, blobSource, dialect, now, query, queryOne, type Op } from './instructions.js';

interface EntryRow {
  readonly id: number;
  readonly role: StoredHistoryRole;
  readonly text: string;
  readonly author_name: string | null;
  readonly attachments: string | null;
}

/** Appends `entry` to the channel's history; answers the channel's revision after it. */
export function* appendHistory(channel: string, entry: HistoryEntry): Op<number> {
  const revision = yield* bumpRevision(channel);
  const { json, digests } = encodeAttachments(entry.attachments, yield* blobSink());
  const id = yield* insertEntry(channel, {
    role: entry.role,
    text: entry.text,
    author: entry.authorId ?? null,
    authorName: entry.authorName ?? null,
    message: entry.messageId ?? null,
    attachments: json,
  });
  for (const digest of digests) yield* query('INSERT INTO history_blob_refs (entry_id, digest) VALUES (@id, @digest) ON CONFLICT DO NOTHING', { id, digest });
  return revision;
}

/** The channel's entries, its summary first, and its revision, as one read. */
export function* readHistory(channel: string): Op<ChannelHistory> {
  const revision = yield* historyRevision(channel);
  const { rows } = yield* query<EntryRow>("SELECT id, role, text, author_name, attachments FROM history_entries WHERE channel = @channel ORDER BY role <> 'summary', id", { channel });
  const blobs = rows.some((row) => row.attachments !== null) ? yield* blobSource({ kind: 'history', channel }) : undefined;
  return {
    entries: rows.map((row): StoredHistoryEntry => {
      const attachments = decodeAttachments(row.attachments, blobs);
      return {
        id: row.id,
        role: row.role,
        text: row.text,
        ...(row.author_name === null ? {} : { authorName: row.author_name }),
        ...(attachments === undefined ? {} : { attachments }),
      };
    }),
    revision,
  };
}

/** The channel's revision; 0 for a channel never written. */
export function* historyRevision(channel: string): Op<number> {
  return (yield* queryOne<{ revision: number }>('SELECT revision FROM history_channels WHERE channel = @channel', { channel }))?.revision ?? 0;
}

/** Replaces the oldest entries and the summary by `compaction.summary`, only while the channel is as the plan read it. */
export function* compactHistory(channel: string, compaction: HistoryCompaction): Op<boolean> {
  const revision = yield* lockChannel(channel);
  if (revision === undefined || compaction.count < 1) return false;
  const upTo = { channel, throughId: compaction.throughId };
  const counted = yield* queryOne<{ count: number }>("SELECT COUNT(*) AS count FROM history_entries WHERE channel = @channel AND role <> 'summary' AND id <= @throughId", upTo);
  const summary = yield* queryOne<{ id: number }>("SELECT id FROM history_entries WHERE channel = @channel AND role = 'summary'", { channel });
  const stillThere = counted?.count === compaction.count;
  const sameSummary = summary?.id === compaction.summaryId;
  const sameRevision = compaction.revision === undefined || compaction.revision === revision;
  if (!stillThere || !sameSummary || !sameRevision) return false;
  yield* query("DELETE FROM history_entries WHERE channel = @channel AND role <> 'summary' AND id <= @throughId", upTo);
  yield* query("DELETE FROM history_entries WHERE channel = @channel AND role = 'summary'", { channel });
  if (compaction.summary !== undefined) yield* insertEntry(channel, { role: 'summary', text: compaction.summary, author: null, authorName: null, message: null, attachments: null });
  yield* bumpRevision(channel);
  return true;
}

/** A user's message edited: its entry takes the new text and keeps its author; `false` when nothing changed. */
export function* editHistory(channel: string, messageId: string, text: string): Op<boolean> {
  if ((yield* lockChannel(channel)) === undefined) return false;
  const { changes } = yield* query("UPDATE history_entries SET text = @text WHERE channel = @channel AND message_id = @messageId AND role = 'user' AND text <> @text", {
    channel,
    messageId,
    text,
  });
  if (changes === 0) return false;
  yield* bumpRevision(channel);
  return true;
}

/** Users' messages deleted: their entries go; answers how many. */
export function* removeFromHistory(channel: string, messageIds: readonly string[]): Op<number> {
  if ((yield* lockChannel(channel)) === undefined) return 0;
  const { inList } = yield* dialect();
  const { changes } = yield* query(`DELETE FROM history_entries WHERE channel = @channel AND ${inList('message_id', 'messageIds')} AND role = 'user'`, { channel, messageIds });
  if (changes > 0) yield* bumpRevision(channel);
  return changes;
}

interface EntryColumns {
  readonly role: StoredHistoryRole;
  readonly text: string;
  readonly author: string | null;
  readonly authorName: string | null;
  readonly message: string | null;
  readonly attachments: string | null;
}

function* insertEntry(channel: string, entry: EntryColumns): Op<number> {
  const row = yield* queryOne<{ id: number }>(
    `INSERT INTO history_entries (channel, role, text, author_id, author_name, message_id, created_at, attachments)
     VALUES (@channel, @role, @text, @author, @authorName, @message, @now, @attachments) RETURNING id`,
    { channel, ...entry, now: yield* now() },
  );
  if (row === undefined) throw new Error(`no history entry was inserted in ${channel}`);
  return row.id;
}

/** Takes the channel's row until the transaction ends and answers its revision; `undefined` for a channel never written, which has nothing to change. */
function* lockChannel(channel: string): Op<number | undefined> {
  const { forUpdate } = yield* dialect();
  return (yield* queryOne<{ revision: number }>(`SELECT revision FROM history_channels WHERE channel = @channel${forUpdate}`, { channel }))?.revision;
}

/** Bumps the channel's revision (creating the channel at 1), taking its row until the transaction ends. */
function* bumpRevision(channel: string): Op<number> {
  const row = yield* queryOne<{ revision: number }>(
    'INSERT INTO history_channels (channel, revision) VALUES (@channel, 1) ON CONFLICT (channel) DO UPDATE SET revision = history_channels.revision + 1 RETURNING revision',
    { channel },
  );
  if (row === undefined) throw new Error(`the revision of ${channel} was not bumped`);
  return row.revision;
}
