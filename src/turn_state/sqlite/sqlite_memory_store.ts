import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import { sqliteCallError } from './store_calls.js';
import {
  foldForMatch,
  MAX_NOTE_LENGTH,
  noteLength,
  type MemoryNote,
  type MemoryScope,
  type MemoryStore,
  type RecallRequest,
  type RecallResult,
  type RememberRequest,
  type RememberResult,
} from '../memory_store.js';

const FOLD_FUNCTION = 'holdfast_fold';

interface NoteRow {
  readonly text: string;
  readonly created_at: number;
}

const toNote = (row: NoteRow): MemoryNote => ({ text: row.text, createdAt: row.created_at });

/** `text` with LIKE's wildcards and the escape character itself made literal (escape is `\`). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/**
 * The {@link MemoryStore} in the store's SQLite file, on the connection the turn store uses.
 * Matching folds case in a SQL function registered on that connection.
 */
export class SqliteMemoryStore implements MemoryStore {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #insert: Statement<[string, MemoryScope, string, string, number]>;
  readonly #byKey: Statement<[string], NoteRow>;
  readonly #recall: Statement<[{ scope: MemoryScope; owner: string; pattern: string | null; limit: number }], NoteRow>;

  constructor(db: Database, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
    db.function(FOLD_FUNCTION, { deterministic: true }, (value: unknown) => (typeof value === 'string' ? foldForMatch(value) : value));
    this.#insert = db.prepare(
      'INSERT INTO memory_notes (idempotency_key, scope, owner_id, text, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING',
    );
    this.#byKey = db.prepare('SELECT text, created_at FROM memory_notes WHERE idempotency_key = ?');
    this.#recall = db.prepare(
      `SELECT text, created_at FROM memory_notes
       WHERE scope = @scope AND owner_id = @owner
         AND (@pattern IS NULL OR ${FOLD_FUNCTION}(text) LIKE @pattern ESCAPE '\\')
       ORDER BY id DESC LIMIT @limit`,
    );
  }

  remember(request: RememberRequest): Promise<RememberResult> {
    const length = noteLength(request.text);
    if (length > MAX_NOTE_LENGTH) return Promise.resolve({ kind: 'too_long', length, max: MAX_NOTE_LENGTH });
    try {
      return Promise.resolve(this.#db.transaction((): RememberResult => this.#store(request)).immediate());
    } catch (error) {
      return Promise.reject(sqliteCallError(this.#db, 'remember a note', error));
    }
  }

  recall(request: RecallRequest): Promise<RecallResult> {
    if (!Number.isInteger(request.limit) || request.limit < 1) return Promise.reject(new RangeError(`recall limit must be a positive integer, got ${request.limit}`));
    const query = request.query ?? '';
    try {
      const rows = this.#recall.all({
        scope: request.scope,
        owner: request.ownerId,
        pattern: query === '' ? null : `%${escapeLike(foldForMatch(query))}%`,
        limit: request.limit + 1,
      });
      return Promise.resolve({ notes: rows.slice(0, request.limit).map(toNote), more: rows.length > request.limit });
    } catch (error) {
      return Promise.reject(sqliteCallError(this.#db, 'recall notes', error));
    }
  }

  #store(request: RememberRequest): RememberResult {
    const createdAt = this.#clock.now();
    const { changes } = this.#insert.run(request.key, request.scope, request.ownerId, request.text, createdAt);
    if (changes === 1) return { kind: 'stored', note: { text: request.text, createdAt } };
    const existing = this.#byKey.get(request.key);
    if (existing === undefined) throw new Error(`no note was stored under key ${request.key}, yet the insert was ignored`);
    return { kind: 'already_stored', note: toNote(existing) };
  }
}
