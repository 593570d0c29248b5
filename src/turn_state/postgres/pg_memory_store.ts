import type pg from 'pg';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import {
  foldForMatch,
  MAX_NOTE_LENGTH,
  noteLength,
  type MemoryNote,
  type MemoryStore,
  type RecallRequest,
  type RecallResult,
  type RememberRequest,
  type RememberResult,
} from '../memory_store.js';
import { named } from './named_params.js';
import { PgCalls } from './pg_calls.js';
import type { PgQueryable } from './pg_pool.js';

interface NoteRow {
  readonly id: number;
  readonly text: string;
  readonly created_at: number;
}

/** How many of an owner's notes one statement reads while a query is matched. */
const PAGE = 200;

const toNote = (row: NoteRow): MemoryNote => ({ text: row.text, createdAt: row.created_at });

const OWNER_NOTES = `SELECT id, text, created_at FROM memory_notes
  WHERE scope = @scope AND owner_id = @owner AND (@before::bigint IS NULL OR id < @before)
  ORDER BY id DESC LIMIT @limit`;

/**
 * The {@link MemoryStore} in the shared PostgreSQL database. Notes are dated by the database's
 * clock. A query is matched as the SQLite store matches it, on {@link foldForMatch}'s folding,
 * which PostgreSQL's own case mapping cannot reproduce (it depends on the server's locale and
 * does not turn ß into SS): the owner's notes are read newest first, a page at a time, and
 * folded here until enough matched.
 */
export class PgMemoryStore implements MemoryStore {
  readonly #calls: PgCalls;

  constructor(pool: pg.Pool, options: { readonly logger: Logger; readonly clock: Clock }) {
    this.#calls = new PgCalls(pool, options.logger, options.clock);
  }

  remember(request: RememberRequest): Promise<RememberResult> {
    const length = noteLength(request.text);
    if (length > MAX_NOTE_LENGTH) return Promise.resolve({ kind: 'too_long', length, max: MAX_NOTE_LENGTH });
    return this.#calls.write('remember a note', async (db): Promise<RememberResult> => {
      const inserted = await db.query<NoteRow>(
        named(
          `INSERT INTO memory_notes (idempotency_key, scope, owner_id, text, created_at) VALUES (@key, @scope, @owner, @text, now_ms())
           ON CONFLICT (idempotency_key) DO NOTHING RETURNING id, text, created_at`,
          { key: request.key, scope: request.scope, owner: request.ownerId, text: request.text },
        ),
      );
      const stored = inserted.rows[0];
      if (stored !== undefined) return { kind: 'stored', note: toNote(stored) };
      const { rows } = await db.query<NoteRow>('SELECT id, text, created_at FROM memory_notes WHERE idempotency_key = $1', [request.key]);
      const existing = rows[0];
      if (existing === undefined) throw new Error(`no note was stored under key ${request.key}, yet the insert was ignored`);
      return { kind: 'already_stored', note: toNote(existing) };
    });
  }

  recall(request: RecallRequest): Promise<RecallResult> {
    if (!Number.isInteger(request.limit) || request.limit < 1) return Promise.reject(new RangeError(`recall limit must be a positive integer, got ${request.limit}`));
    const query = request.query ?? '';
    return this.#calls.read('recall notes', async (db) => {
      const rows = query === '' ? await ownerNotes(db, request, null, request.limit + 1) : await matchingNotes(db, request, foldForMatch(query), request.limit + 1);
      return { notes: rows.slice(0, request.limit).map(toNote), more: rows.length > request.limit };
    });
  }
}

function ownerNotes(db: PgQueryable, request: RecallRequest, before: number | null, limit: number): Promise<NoteRow[]> {
  return db.query<NoteRow>(named(OWNER_NOTES, { scope: request.scope, owner: request.ownerId, before, limit })).then((result) => result.rows);
}

/**
 * Up to `wanted` of the owner's notes containing `folded`, newest first. Notes are never changed
 * or deleted and a new one has a higher id, so the pages read one after another add up to what
 * one read would have found.
 */
async function matchingNotes(db: PgQueryable, request: RecallRequest, folded: string, wanted: number): Promise<NoteRow[]> {
  const found: NoteRow[] = [];
  let before: number | null = null;
  for (;;) {
    const page = await ownerNotes(db, request, before, PAGE);
    for (const row of page) {
      if (foldForMatch(row.text).includes(folded)) found.push(row);
      if (found.length === wanted) return found;
    }
    const last = page.at(-1);
    if (page.length < PAGE || last === undefined) return found;
    before = last.id;
  }
}
