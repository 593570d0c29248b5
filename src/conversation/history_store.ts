import type { Database, Statement } from 'better-sqlite3';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { Message } from '../llm/protocol.js';
import { openSqliteFile } from '../turn_state/sqlite/file.js';
import { assertNever } from '../core/assert_never.js';

/** What the summary entry's text starts with when it is loaded as a message. */
export const SUMMARY_PREFIX = 'Summary of the earlier conversation: ';

/** Who said an entry: the people in the channel (`user`) or the bot (`assistant`). */
export type HistoryRole = 'user' | 'assistant';

/** One message of a channel's conversation: a user's message or the bot's final reply. */
export interface HistoryEntry {
  readonly role: HistoryRole;
  readonly text: string;
  /** Who wrote it (a Discord user id, or the console's user). */
  readonly authorId?: string;
  /** The transport's message id, so that a deleted message can be removed with {@link HistoryStore.remove}. */
  readonly messageId?: string;
}

/** A channel's conversation as it goes with a request, and the revision it was read at. */
export interface HistoryView {
  /** Text messages, oldest first; a summary of the earlier conversation, if any, comes first as a `user` message. */
  readonly messages: Message[];
  readonly revision: number;
}

/** What to do with history beyond the budget: drop it, or fold it into a summary (`chat.compaction`). */
export type Compaction = Config['chat']['compaction'];

/** Summarises messages into one text; the first message may itself be the earlier summary. */
export type Summarizer = (messages: Message[]) => Promise<string>;

/** What a {@link HistoryStore.fitToBudget} did: how many entries it removed, and whether a summary replaced them. */
export interface FitResult {
  readonly dropped: number;
  readonly summarised: boolean;
}

/** How an entry is stored: a conversation entry, or the channel's one summary of what came before them. */
type StoredRole = HistoryRole | 'summary';

interface EntryRow {
  readonly id: number;
  readonly role: StoredRole;
  readonly text: string;
}

/** The entries a compaction removes: the oldest ones (a contiguous prefix) and the summary before them. */
interface CompactionPlan {
  readonly summary: EntryRow | undefined;
  readonly removed: readonly EntryRow[];
}

const NOTHING_CHANGED: FitResult = { dropped: 0, summarised: false };

/** The schema, one entry per version; a database at version N runs the entries after N, in order. */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE channels (
    channel TEXT PRIMARY KEY,
    revision INTEGER NOT NULL CHECK (revision > 0)
  ) WITHOUT ROWID;
  CREATE TABLE entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    channel TEXT NOT NULL REFERENCES channels (channel),
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'summary')),
    text TEXT NOT NULL,
    author_id TEXT,
    message_id TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX entries_by_channel ON entries (channel, id);
  CREATE INDEX entries_by_message ON entries (channel, message_id) WHERE message_id IS NOT NULL;
  CREATE UNIQUE INDEX one_summary_per_channel ON entries (channel) WHERE role = 'summary';
  `,
];



/** Characters as a person counts them: code points, not UTF-16 units. */
function characterCount(text: string): number {
  return [...text].length;
}

function toMessage(row: EntryRow): Message {
  switch (row.role) {
    case 'user':
    case 'assistant':
      return { role: row.role, content: [{ type: 'text', text: row.text }] };
    case 'summary':
      return { role: 'user', content: [{ type: 'text', text: `${SUMMARY_PREFIX}${row.text}` }] };
    default:
      return assertNever(row.role);
  }
}

/**
 * Which entries to remove so that the conversation entries fit `maxChars`: the oldest first,
 * never the newest; the summary goes with them, since it summarises what came before them.
 * `undefined` when the entries already fit (or only the newest is left).
 */
function planCompaction(rows: readonly EntryRow[], maxChars: number): CompactionPlan | undefined {
  const entries = rows.filter((row) => row.role !== 'summary');
  let total = entries.reduce((sum, row) => sum + characterCount(row.text), 0);
  let cut = 0;
  for (const row of entries.slice(0, -1)) {
    if (total <= maxChars) break;
    total -= characterCount(row.text);
    cut += 1;
  }
  if (cut === 0) return undefined;
  return { summary: rows.find((row) => row.role === 'summary'), removed: entries.slice(0, cut) };
}

/** The messages a summarizer folds: the earlier summary first, then the removed entries in order. */
function planMessages(plan: CompactionPlan): Message[] {
  return [...(plan.summary === undefined ? [] : [plan.summary]), ...plan.removed].map(toMessage);
}

/** The summarizer's text, or `undefined` when it threw or said nothing: the caller then drops instead. */
async function trySummarize(summarize: Summarizer, messages: Message[]): Promise<string | undefined> {
  try {
    const text = (await summarize(messages)).trim();
    return text === '' ? undefined : text;
  } catch {
    return undefined;
  }
}

/**
 * The conversation of each channel across turns, in its own SQLite file. A channel is named by a
 * key, `${source}:${channelId}`. Every change is one transaction that also bumps the channel's
 * revision exactly once, so a reader that saw revision N knows the conversation is unchanged while
 * the revision is still N (DESIGN §9: auto-resume stands down when it has moved).
 *
 * The budget counts the conversation entries' characters. A compaction removes the oldest entries
 * (never the newest) and the earlier summary with them; with `summarize`, one new summary of all of
 * them takes their place, loaded first. A deleted message that had already been summarised lives on
 * only in that summary's words.
 */
export class HistoryStore {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #bump: Statement<[string], { revision: number }>;
  readonly #revision: Statement<[string], { revision: number }>;
  readonly #insert: Statement<[string, StoredRole, string, string | null, string | null, number]>;
  readonly #rows: Statement<[string], EntryRow>;
  readonly #removeMessage: Statement<[string, string]>;
  readonly #removeUpTo: Statement<[string, number]>;
  readonly #countUpTo: Statement<[string, number], { count: number }>;
  readonly #summaryId: Statement<[string], { id: number }>;
  readonly #removeSummary: Statement<[string]>;
  readonly #clear: Statement<[string]>;

  private constructor(db: Database, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
    this.#bump = db.prepare(
      'INSERT INTO channels (channel, revision) VALUES (?, 1) ON CONFLICT (channel) DO UPDATE SET revision = revision + 1 RETURNING revision',
    );
    this.#revision = db.prepare('SELECT revision FROM channels WHERE channel = ?');
    this.#insert = db.prepare('INSERT INTO entries (channel, role, text, author_id, message_id, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    this.#rows = db.prepare("SELECT id, role, text FROM entries WHERE channel = ? ORDER BY role <> 'summary', id");
    this.#removeMessage = db.prepare("DELETE FROM entries WHERE channel = ? AND message_id = ? AND role <> 'summary'");
    this.#removeUpTo = db.prepare("DELETE FROM entries WHERE channel = ? AND role <> 'summary' AND id <= ?");
    this.#countUpTo = db.prepare("SELECT count(*) AS count FROM entries WHERE channel = ? AND role <> 'summary' AND id <= ?");
    this.#summaryId = db.prepare("SELECT id FROM entries WHERE channel = ? AND role = 'summary'");
    this.#removeSummary = db.prepare("DELETE FROM entries WHERE channel = ? AND role = 'summary'");
    this.#clear = db.prepare('DELETE FROM entries WHERE channel = ?');
  }

  /**
   * Opens the store at `dbPath`, creating the file and its directory when missing.
   * @throws when the database cannot be opened or was written by a newer version of this program.
   */
  static open(dbPath: string, clock: Clock): HistoryStore {
    return new HistoryStore(openSqliteFile(dbPath, MIGRATIONS, 'history store'), clock);
  }

  /** Adds an entry after the channel's newest; returns the channel's new revision. */
  append(channel: string, entry: HistoryEntry): number {
    return this.#db.transaction((): number => {
      const revision = this.#bumpRevision(channel);
      this.#insert.run(channel, entry.role, entry.text, entry.authorId ?? null, entry.messageId ?? null, this.#clock.now());
      return revision;
    })();
  }

  /** The channel's conversation as text messages, oldest first, and the revision it was read at. */
  load(channel: string): HistoryView {
    return this.#db.transaction((): HistoryView => ({
      messages: this.#rows.all(channel).map(toMessage),
      revision: this.revision(channel),
    }))();
  }

  /** The channel's revision: 0 for a channel never written, bumped by every change. */
  revision(channel: string): number {
    return this.#revision.get(channel)?.revision ?? 0;
  }

  /** Removes the entries of a message its author deleted; `false` (and no new revision) when there were none. */
  remove(channel: string, messageId: string): boolean {
    return this.#db.transaction((): boolean => {
      const removed = this.#removeMessage.run(channel, messageId).changes > 0;
      if (removed) this.#bumpRevision(channel);
      return removed;
    })();
  }

  /**
   * Brings the channel's entries within `maxChars` characters by removing the oldest (never the
   * newest, even when it alone is over); the summary is not counted, so a second call right after
   * changes nothing. With `summarize` compaction and a summarizer, the removed
   * entries — the earlier summary first — are replaced by one new summary; when the summarizer throws
   * or answers nothing, or an entry it was given was removed meanwhile, the entries are dropped
   * instead. Changes nothing when the entries fit; otherwise bumps the revision once.
   * @throws RangeError when `maxChars` is not a positive integer.
   */
  async fitToBudget(channel: string, maxChars: number, compaction: Compaction, summarize?: Summarizer): Promise<FitResult> {
    if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError(`history budget must be a positive integer, got ${maxChars}`);
    switch (compaction) {
      case 'drop':
        return this.#drop(channel, maxChars);
      case 'summarize': {
        if (summarize === undefined) return this.#drop(channel, maxChars);
        const plan = planCompaction(this.#rows.all(channel), maxChars);
        if (plan === undefined) return NOTHING_CHANGED;
        const summary = await trySummarize(summarize, planMessages(plan));
        return (summary === undefined ? undefined : this.#replace(channel, plan, summary)) ?? this.#drop(channel, maxChars);
      }
      default:
        return assertNever(compaction);
    }
  }

  /** Forgets the channel's whole conversation, summary included; always bumps the revision. */
  clear(channel: string): void {
    this.#db.transaction(() => {
      this.#clear.run(channel);
      this.#bumpRevision(channel);
    })();
  }

  /** Closes the database; further calls throw. Closing twice is harmless. */
  close(): void {
    if (this.#db.open) this.#db.close();
  }

  #bumpRevision(channel: string): number {
    const row = this.#bump.get(channel);
    if (row === undefined) throw new Error(`the revision of ${channel} was not bumped`);
    return row.revision;
  }

  /** Removes what a plan made now says, without a summary. */
  #drop(channel: string, maxChars: number): FitResult {
    return this.#db.transaction((): FitResult => {
      const plan = planCompaction(this.#rows.all(channel), maxChars);
      if (plan === undefined) return NOTHING_CHANGED;
      this.#removePlanned(channel, plan);
      this.#bumpRevision(channel);
      return { dropped: plan.removed.length, summarised: false };
    })();
  }

  /**
   * Replaces the planned entries by the summary, if they are all still there and no other summary
   * took the earlier one's place while it was written; `undefined` otherwise. Entries appended
   * meanwhile are newer than all of them, and stay.
   */
  #replace(channel: string, plan: CompactionPlan, summary: string): FitResult | undefined {
    return this.#db.transaction((): FitResult | undefined => {
      const last = plan.removed.at(-1);
      if (last === undefined) return undefined;
      const stillThere = this.#countUpTo.get(channel, last.id)?.count === plan.removed.length;
      const sameSummary = this.#summaryId.get(channel)?.id === plan.summary?.id;
      if (!stillThere || !sameSummary) return undefined;
      this.#removePlanned(channel, plan);
      this.#insert.run(channel, 'summary', summary, null, null, this.#clock.now());
      this.#bumpRevision(channel);
      return { dropped: plan.removed.length, summarised: true };
    })();
  }

  #removePlanned(channel: string, plan: CompactionPlan): void {
    const last = plan.removed.at(-1);
    if (last !== undefined) this.#removeUpTo.run(channel, last.id);
    this.#removeSummary.run(channel);
  }
}
