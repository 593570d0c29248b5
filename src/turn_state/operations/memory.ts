/**
 * Memory notes (the `remember` and `recall` tools): kept per user or channel, never changed or
 * deleted, each under an idempotency key so that a repeated `remember` keeps one note. A query is
 * matched on {@link foldForMatch}'s folding, done here rather than by the database, whose own case
 * mapping depends on its locale: the owner's notes are read newest first, a page at a time, and
 * folded until enough matched.
 */
import { foldForMatch, type MemoryNote, type RecallRequest, type RecallResult, type RememberRequest, type RememberResult } from '../memory_store.js';
import { now, query, queryOne, type Op } from './instructions.js';

interface NoteRow {
  readonly id: number;
  readonly text: string;
  readonly created_at: number;
}

/** How many of an owner's notes one statement reads while a query is matched. */
const PAGE = 200;

const toNote = (row: NoteRow): MemoryNote => ({ text: row.text, createdAt: row.created_at });

/** Keeps a note, dated now; a note already kept under the request's key is answered as it is. */
export function* rememberNote(request: RememberRequest): Op<RememberResult> {
  const stored = yield* queryOne<NoteRow>(
    `INSERT INTO memory_notes (idempotency_key, scope, owner_id, text, created_at) VALUES (@key, @scope, @owner, @text, @now)
     ON CONFLICT (idempotency_key) DO NOTHING RETURNING id, text, created_at`,
    { key: request.key, scope: request.scope, owner: request.ownerId, text: request.text, now: yield* now() },
  );
  if (stored !== undefined) return { kind: 'stored', note: toNote(stored) };
  const existing = yield* queryOne<NoteRow>('SELECT id, text, created_at FROM memory_notes WHERE idempotency_key = @key', { key: request.key });
  if (existing === undefined) throw new Error(`no note was stored under key ${request.key}, yet the insert was ignored`);
  return { kind: 'already_stored', note: toNote(existing) };
}

/** The owner's newest notes (those containing the query, when there is one), and whether more are kept. */
export function* recallNotes(request: RecallRequest): Op<RecallResult> {
  const wanted = request.limit + 1;
  const folded = foldForMatch(request.query ?? '');
  const rows = folded === '' ? yield* ownerNotes(request, null, wanted) : yield* matchingNotes(request, folded, wanted);
  return { notes: rows.slice(0, request.limit).map(toNote), more: rows.length > request.limit };
}

function* ownerNotes(request: RecallRequest, before: number | null, limit: number): Op<NoteRow[]> {
  const { rows } = yield* query<NoteRow>(
    `SELECT id, text, created_at FROM memory_notes
     WHERE scope = @scope AND owner_id = @owner AND (CAST(@before AS BIGINT) IS NULL OR id < @before)
     ORDER BY id DESC LIMIT @limit`,
    { scope: request.scope, owner: request.ownerId, before, limit },
  );
  return rows;
}

/**
 * Up to `wanted` of the owner's notes containing `folded`, newest first. Notes are never changed
 * or deleted and a new one has a higher id, so the pages read one after another add up to what one
 * read would have found.
 */
function* matchingNotes(request: RecallRequest, folded: string, wanted: number): Op<NoteRow[]> {
  const found: NoteRow[] = [];
  let before: number | null = null;
  for (;;) {
    const page: NoteRow[] = yield* ownerNotes(request, before, PAGE);
    for (const row of page) {
      if (foldForMatch(row.text).includes(folded)) found.push(row);
      if (found.length === wanted) return found;
    }
    const last = page.at(-1);
    if (page.length < PAGE || last === undefined) return found;
    before = last.id;
  }
}
