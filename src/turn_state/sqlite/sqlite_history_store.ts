import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import type { BlobStore } from '../blob_store.js';
import { sqliteCallError } from './store_calls.js';
import type { ChannelHistory, HistoryCompaction, HistoryEntry, HistoryStore, StoredHistoryEntry, StoredHistoryRole } from '../history_store.js';
import { decodeAttachments, encodeAttachments } from '../history_attachments.js';

interface EntryRow {
  readonly id: number;
  readonly role: StoredHistoryRole;
  readonly text: string;
  readonly attachments: string | null;
}

/**
 * The {@link HistoryStore} in the store's SQLite file, on the connection the turn store uses;
 * attachments' bytes live in the blob directory beside it (inline when history is in memory).
 * Each method is one transaction; its failures reject with {@link TurnStateUnavailable}.
 */
export class SqliteHistoryStore implements HistoryStore {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #blobs: BlobStore | undefined;
  readonly #bump: Statement<[string], { revision: number }>;
  readonly #revision: Statement<[string], { revision: number }>;
  readonly #insert: Statement<[string, StoredHistoryRole, string, string | null, string | null, number, string | null]>;
  readonly #reference: Statement<[number | bigint, string]>;
  readonly #rows: Statement<[string], EntryRow>;
  readonly #removeUpTo: Statement<[string, number]>;
  readonly #countUpTo: Statement<[string, number], { count: number }>;
  readonly #summaryId: Statement<[string], { id: number }>;
  readonly #removeSummary: Statement<[string]>;
  readonly #editText: Statement<[string, string, string, string]>;
  readonly #removeMessage: Statement<[string, string]>;

  constructor(db: Database, clock: Clock, blobs?: BlobStore) {
    this.#db = db;
    this.#clock = clock;
    this.#blobs = blobs;
    this.#bump = db.prepare(
      'INSERT INTO history_channels (channel, revision) VALUES (?, 1) ON CONFLICT (channel) DO UPDATE SET revision = revision + 1 RETURNING revision',
    );
    this.#revision = db.prepare('SELECT revision FROM history_channels WHERE channel = ?');
    this.#insert = db.prepare('INSERT INTO history_entries (channel, role, text, author_id, message_id, created_at, attachments) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.#reference = db.prepare('INSERT OR IGNORE INTO history_blob_refs (entry_id, digest) VALUES (?, ?)');
    this.#rows = db.prepare("SELECT id, role, text, attachments FROM history_entries WHERE channel = ? ORDER BY role <> 'summary', id");
    this.#removeUpTo = db.prepare("DELETE FROM history_entries WHERE channel = ? AND role <> 'summary' AND id <= ?");
    this.#countUpTo = db.prepare("SELECT count(*) AS count FROM history_entries WHERE channel = ? AND role <> 'summary' AND id <= ?");
    this.#summaryId = db.prepare("SELECT id FROM history_entries WHERE channel = ? AND role = 'summary'");
    this.#removeSummary = db.prepare("DELETE FROM history_entries WHERE channel = ? AND role = 'summary'");
    this.#editText = db.prepare("UPDATE history_entries SET text = ? WHERE channel = ? AND message_id = ? AND role = 'user' AND text <> ?");
    this.#removeMessage = db.prepare("DELETE FROM history_entries WHERE channel = ? AND message_id = ? AND role = 'user'");
  }

  append(channel: string, entry: HistoryEntry): Promise<number> {
    return this.#run('append history', () => {
      const revision = this.#bumpRevision(channel);
      const { json, digests } = encodeAttachments(entry.attachments, this.#blobs);
      const { lastInsertRowid } = this.#insert.run(channel, entry.role, entry.text, entry.authorId ?? null, entry.messageId ?? null, this.#clock.now(), json);
      for (const digest of digests) this.#reference.run(lastInsertRowid, digest);
      return revision;
    });
  }

  read(channel: string): Promise<ChannelHistory> {
    return this.#run('read history', () => ({ entries: this.#rows.all(channel).map((row) => this.#entry(row)), revision: this.#currentRevision(channel) }), 'read');
  }

  revision(channel: string): Promise<number> {
    return this.#run('read history revision', () => this.#currentRevision(channel), 'read');
  }

  compact(channel: string, compaction: HistoryCompaction): Promise<boolean> {
    return this.#run('compact history', () => {
      const stillThere = this.#countUpTo.get(channel, compaction.throughId)?.count === compaction.count;
      const sameSummary = this.#summaryId.get(channel)?.id === compaction.summaryId;
      const sameRevision = compaction.revision === undefined || compaction.revision === this.#currentRevision(channel);
      if (compaction.count < 1 || !stillThere || !sameSummary || !sameRevision) return false;
      this.#removeUpTo.run(channel, compaction.throughId);
      this.#removeSummary.run(channel);
      if (compaction.summary !== undefined) this.#insert.run(channel, 'summary', compaction.summary, null, null, this.#clock.now(), null);
      this.#bumpRevision(channel);
      return true;
    });
  }

  edit(channel: string, messageId: string, text: string): Promise<boolean> {
    return this.#run('edit history', () => {
      if (this.#editText.run(text, channel, messageId, text).changes === 0) return false;
      this.#bumpRevision(channel);
      return true;
    });
  }

  remove(channel: string, messageIds: readonly string[]): Promise<number> {
    return this.#run('remove from history', () => {
      const removed = messageIds.reduce((sum, messageId) => sum + this.#removeMessage.run(channel, messageId).changes, 0);
      if (removed > 0) this.#bumpRevision(channel);
      return removed;
    });
  }

  #entry(row: EntryRow): StoredHistoryEntry {
    const attachments = decodeAttachments(row.attachments, this.#blobs);
    return { id: row.id, role: row.role, text: row.text, ...(attachments === undefined ? {} : { attachments }) };
  }

  #currentRevision(channel: string): number {
    return this.#revision.get(channel)?.revision ?? 0;
  }

  #bumpRevision(channel: string): number {
    const row = this.#bump.get(channel);
    if (row === undefined) throw new Error(`the revision of ${channel} was not bumped`);
    return row.revision;
  }

  /** Runs `work` in one transaction (IMMEDIATE for a write); the store's failure rejects as TurnStateUnavailable. */
  #run<T>(operation: string, work: () => T, kind: 'read' | 'write' = 'write'): Promise<T> {
    try {
      const transaction = this.#db.transaction(work);
      return Promise.resolve(kind === 'write' ? transaction.immediate() : transaction.deferred());
    } catch (error) {
      return Promise.reject(sqliteCallError(this.#db, operation, error));
    }
  }
}
