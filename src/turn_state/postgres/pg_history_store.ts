import type pg from 'pg';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { decodeAttachments, encodeAttachments } from '../history_attachments.js';
import type { ChannelHistory, HistoryCompaction, HistoryEntry, HistoryStore, StoredHistoryEntry, StoredHistoryRole } from '../history_store.js';
import { named } from './named_params.js';
import { loadBlobs, PendingBlobs } from './pg_blobs.js';
import { PgCalls } from './pg_calls.js';
import type { PgQueryable } from './pg_pool.js';

interface EntryRow {
  readonly id: number;
  readonly role: StoredHistoryRole;
  readonly text: string;
  readonly attachments: string | null;
}

const INSERT_ENTRY = `INSERT INTO history_entries (channel, role, text, author_id, message_id, created_at, attachments)
  VALUES (@channel, @role, @text, @author, @message, now_ms(), @attachments) RETURNING id`;

/** The blobs the attachments of a channel's entries refer to. */
const CHANNEL_BLOBS = `SELECT digest, bytes FROM blobs WHERE digest IN (
  SELECT refs.digest FROM history_blob_refs refs JOIN history_entries entries ON entries.id = refs.entry_id WHERE entries.channel = $1)`;

/**
 * The {@link HistoryStore} in the shared PostgreSQL database; attachments' bytes are `blobs` rows.
 * Each method is one transaction; a change first takes the channel's `history_channels` row, so
 * that the writers of one channel, in any process, take turns. Entries are dated by the
 * database's clock. Failures reject with TurnStateUnavailable.
 */
export class PgHistoryStore implements HistoryStore {
  readonly #calls: PgCalls;

  constructor(pool: pg.Pool, options: { readonly logger: Logger; readonly clock: Clock }) {
    this.#calls = new PgCalls(pool, options.logger, options.clock);
  }

  append(channel: string, entry: HistoryEntry): Promise<number> {
    return this.#calls.write('append history', async (db) => {
      const revision = await bumpRevision(db, channel);
      const blobs = new PendingBlobs();
      const { json, digests } = encodeAttachments(entry.attachments, blobs);
      await blobs.writeTo(db);
      const id = await insertEntry(db, channel, { role: entry.role, text: entry.text, author: entry.authorId ?? null, message: entry.messageId ?? null, attachments: json });
      for (const digest of digests) {
        await db.query('INSERT INTO history_blob_refs (entry_id, digest) VALUES ($1, $2) ON CONFLICT DO NOTHING', [id, digest]);
      }
      return revision;
    });
  }

  read(channel: string): Promise<ChannelHistory> {
    return this.#calls.write('read history', async (db) => {
      // One snapshot for the entries, their blobs and the revision, as one SQLite read transaction sees them.
      await db.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      const revision = await currentRevision(db, channel);
      const { rows } = await db.query<EntryRow>("SELECT id, role, text, attachments FROM history_entries WHERE channel = $1 ORDER BY role <> 'summary', id", [channel]);
      const blobs = rows.some((row) => row.attachments !== null) ? await loadBlobs(db, CHANNEL_BLOBS, [channel]) : undefined;
      return { entries: rows.map((row) => entryFrom(row, blobs)), revision };
    });
  }

  revision(channel: string): Promise<number> {
    return this.#calls.read('read history revision', (db) => currentRevision(db, channel));
  }

  compact(channel: string, compaction: HistoryCompaction): Promise<boolean> {
    return this.#calls.write('compact history', async (db) => {
      const revision = await lockChannel(db, channel);
      if (revision === undefined || compaction.count < 1) return false;
      const counted = await db.query<{ count: number }>("SELECT count(*) AS count FROM history_entries WHERE channel = $1 AND role <> 'summary' AND id <= $2", [
        channel,
        compaction.throughId,
      ]);
      const summary = await db.query<{ id: number }>("SELECT id FROM history_entries WHERE channel = $1 AND role = 'summary'", [channel]);
      const stillThere = counted.rows[0]?.count === compaction.count;
      const sameSummary = summary.rows[0]?.id === compaction.summaryId;
      const sameRevision = compaction.revision === undefined || compaction.revision === revision;
      if (!stillThere || !sameSummary || !sameRevision) return false;
      await db.query("DELETE FROM history_entries WHERE channel = $1 AND role <> 'summary' AND id <= $2", [channel, compaction.throughId]);
      await db.query("DELETE FROM history_entries WHERE channel = $1 AND role = 'summary'", [channel]);
      if (compaction.summary !== undefined) await insertEntry(db, channel, { role: 'summary', text: compaction.summary, author: null, message: null, attachments: null });
      await bumpRevision(db, channel);
      return true;
    });
  }

  edit(channel: string, messageId: string, text: string): Promise<boolean> {
    return this.#calls.write('edit history', async (db) => {
      if ((await lockChannel(db, channel)) === undefined) return false;
      const { rowCount } = await db.query("UPDATE history_entries SET text = $1 WHERE channel = $2 AND message_id = $3 AND role = 'user' AND text <> $1", [text, channel, messageId]);
      if (rowCount === 0) return false;
      await bumpRevision(db, channel);
      return true;
    });
  }

  remove(channel: string, messageIds: readonly string[]): Promise<number> {
    return this.#calls.write('remove from history', async (db) => {
      if ((await lockChannel(db, channel)) === undefined) return 0;
      const { rowCount } = await db.query("DELETE FROM history_entries WHERE channel = $1 AND message_id = ANY($2::text[]) AND role = 'user'", [channel, [...messageIds]]);
      const removed = rowCount ?? 0;
      if (removed > 0) await bumpRevision(db, channel);
      return removed;
    });
  }
}

function entryFrom(row: EntryRow, blobs: Parameters<typeof decodeAttachments>[1]): StoredHistoryEntry {
  const attachments = decodeAttachments(row.attachments, blobs);
  return { id: row.id, role: row.role, text: row.text, ...(attachments === undefined ? {} : { attachments }) };
}

async function insertEntry(
  db: PgQueryable,
  channel: string,
  entry: { role: StoredHistoryRole; text: string; author: string | null; message: string | null; attachments: string | null },
): Promise<number> {
  const { rows } = await db.query<{ id: number }>(named(INSERT_ENTRY, { channel, ...entry }));
  const id = rows[0]?.id;
  if (id === undefined) throw new Error(`no history entry was inserted in ${channel}`);
  return id;
}

async function currentRevision(db: PgQueryable, channel: string): Promise<number> {
  const { rows } = await db.query<{ revision: number }>('SELECT revision FROM history_channels WHERE channel = $1', [channel]);
  return rows[0]?.revision ?? 0;
}

/** Takes the channel's row until the transaction ends and answers its revision; `undefined` for a channel never written, which has nothing to change. */
async function lockChannel(db: PgQueryable, channel: string): Promise<number | undefined> {
  const { rows } = await db.query<{ revision: number }>('SELECT revision FROM history_channels WHERE channel = $1 FOR UPDATE', [channel]);
  return rows[0]?.revision;
}

/** Bumps the channel's revision (creating the channel at 1), taking its row until the transaction ends. */
async function bumpRevision(db: PgQueryable, channel: string): Promise<number> {
  const { rows } = await db.query<{ revision: number }>(
    'INSERT INTO history_channels (channel, revision) VALUES ($1, 1) ON CONFLICT (channel) DO UPDATE SET revision = history_channels.revision + 1 RETURNING revision',
    [channel],
  );
  const revision = rows[0]?.revision;
  if (revision === undefined) throw new Error(`the revision of ${channel} was not bumped`);
  return revision;
}
