import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../core/clock.js';
import { openSqliteFile } from '../turn_state/sqlite/file.js';

/** Whose notes: one person's (`user`) or everyone's in one channel (`channel`). */
export const MEMORY_SCOPES = ['user', 'channel'] as const;
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

/** The longest note kept, in characters (Unicode code points, as JSON Schema's `maxLength` counts them). */
export const MAX_NOTE_LENGTH = 2000;

/** One kept note. */
export interface MemoryNote {
  readonly text: string;
  /** Wall time it was stored, in epoch milliseconds (from the Clock). */
  readonly createdAt: number;
}

/** A note to keep. `key` is the op's idempotency key: a second store under it stores nothing. */
export interface RememberRequest {
  readonly scope: MemoryScope;
  /** The user id for `user` scope, `source:channelId` for `channel` scope. */
  readonly ownerId: string;
  readonly text: string;
  readonly key: string;
}

/** What a remember came to: stored now, stored before under the same key, or refused. */
export type RememberResult =
  | { readonly kind: 'stored'; readonly note: MemoryNote }
  | { readonly kind: 'already_stored'; readonly note: MemoryNote }
  | { readonly kind: 'too_long'; readonly length: number; readonly max: number };

/** Which notes to look up; `query` keeps only notes containing it, ignoring case. */
export interface RecallRequest {
  readonly scope: MemoryScope;
  readonly ownerId: string;
  readonly query?: string;
  readonly limit: number;
}

/** The notes found, most recent first; `more` when further notes matched beyond the limit. */
export interface RecallResult {
  readonly notes: readonly MemoryNote[];
  readonly more: boolean;
}

/** The schema, one entry per version; a database at version N runs the entries after N, in order. */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE notes (
    id INTEGER PRIMARY KEY,
    idempotency_key TEXT NOT NULL UNIQUE,
    scope TEXT NOT NULL CHECK (scope IN (${MEMORY_SCOPES.map((s) => `'${s}'`).join(', ')})),
    owner_id TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX notes_by_owner ON notes (scope, owner_id, id);
  `,
];

const FOLD_FUNCTION = 'holdfast_fold';

/** Case-folds for matching: compatibility-normalised, and upper-then-lower so that ß matches SS. */
function fold(text: string): string {
  return text.normalize('NFKC').toUpperCase().toLowerCase();
}

/** `text` with LIKE's wildcards and the escape character itself made literal (escape is `\`). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/** Characters as a person (and JSON Schema) counts them: code points, not UTF-16 units. */
function characterCount(text: string): number {
  return [...text].length;
}

interface NoteRow {
  readonly text: string;
  readonly created_at: number;
}

const toNote = (row: NoteRow): MemoryNote => ({ text: row.text, createdAt: row.created_at });



/**
 * Notes kept per user or per channel in their own SQLite file. Each note is stored under the
 * idempotency key of the call that made it, so a call that is re-sent after a crash stores once.
 * "Most recent" is the order notes were stored in, which a wall-clock correction cannot reorder;
 * the stored wall time is what a note is dated by.
 */
export class MemoryStore {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #insert: Statement<[string, MemoryScope, string, string, number]>;
  readonly #byKey: Statement<[string], NoteRow>;
  readonly #recall: Statement<[{ scope: MemoryScope; owner: string; pattern: string | null; limit: number }], NoteRow>;

  private constructor(db: Database, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
    this.#insert = db.prepare(
      'INSERT INTO notes (idempotency_key, scope, owner_id, text, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING',
    );
    this.#byKey = db.prepare('SELECT text, created_at FROM notes WHERE idempotency_key = ?');
    this.#recall = db.prepare(
      `SELECT text, created_at FROM notes
       WHERE scope = @scope AND owner_id = @owner
         AND (@pattern IS NULL OR ${FOLD_FUNCTION}(text) LIKE @pattern ESCAPE '\\')
       ORDER BY id DESC LIMIT @limit`,
    );
  }

  /**
   * Opens the store at `dbPath`, creating the file and its directory when missing.
   * @throws when the database cannot be opened or migrated.
   */
  static open(dbPath: string, clock: Clock): MemoryStore {
    const db = openSqliteFile(dbPath, MIGRATIONS, 'memory store');
    db.function(FOLD_FUNCTION, { deterministic: true }, (value: unknown) => (typeof value === 'string' ? fold(value) : value));
    return new MemoryStore(db, clock);
  }

  /** Keeps a note unless one is already stored under `key`; refuses a note over {@link MAX_NOTE_LENGTH}. */
  remember(request: RememberRequest): RememberResult {
    const length = characterCount(request.text);
    if (length > MAX_NOTE_LENGTH) return { kind: 'too_long', length, max: MAX_NOTE_LENGTH };
    return this.#db.transaction((): RememberResult => {
      const createdAt = this.#clock.now();
      const { changes } = this.#insert.run(request.key, request.scope, request.ownerId, request.text, createdAt);
      if (changes === 1) return { kind: 'stored', note: { text: request.text, createdAt } };
      const existing = this.#byKey.get(request.key);
      if (existing === undefined) throw new Error(`no note was stored under key ${request.key}, yet the insert was ignored`);
      return { kind: 'already_stored', note: toNote(existing) };
    })();
  }

  /** The owner's notes, most recent first, at most `limit`, optionally only those containing `query`. */
  recall(request: RecallRequest): RecallResult {
    if (!Number.isInteger(request.limit) || request.limit < 1) throw new RangeError(`recall limit must be a positive integer, got ${request.limit}`);
    const query = request.query ?? '';
    const rows = this.#recall.all({
      scope: request.scope,
      owner: request.ownerId,
      pattern: query === '' ? null : `%${escapeLike(fold(query))}%`,
      limit: request.limit + 1,
    });
    return { notes: rows.slice(0, request.limit).map(toNote), more: rows.length > request.limit };
  }

  /** Closes the database; further calls throw. Closing twice is harmless. */
  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
