import { assertNever } from '../../core/assert_never.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import type { Logger } from '../../core/logger.js';
import { causeOf } from '../errors.js';
import { userOwnerWithSource } from './migrations.js';

/** What the previous layout kept in a file of its own. */
export type PreviousFileKind = 'history' | 'memory';

/** Where the previous layout kept each file by default, relative to the folder `turn_state.db_path` is relative to. */
export const PREVIOUS_LAYOUT_FILES: Readonly<Record<PreviousFileKind, string>> = {
  history: 'data/history/history.sqlite3',
  memory: 'data/memory/memory.sqlite3',
};

/** The one schema version the previous layout's files were written at. */
const PREVIOUS_SCHEMA_VERSION = 1;

type Row = Readonly<Record<string, unknown>>;

/** An old file's rows, read before anything is written. */
interface PreviousFile {
  readonly kind: PreviousFileKind;
  readonly path: string;
  readonly tables: Readonly<Record<string, readonly Row[]>>;
}

/** What each kind of file holds: its tables, each read in the order it is written back. */
const READS: Readonly<Record<PreviousFileKind, Readonly<Record<string, string>>>> = {
  history: {
    channels: 'SELECT channel, revision FROM channels ORDER BY channel',
    entries: 'SELECT channel, role, text, author_id, message_id, created_at FROM entries ORDER BY id',
  },
  memory: {
    notes: 'SELECT idempotency_key, scope, owner_id, text, created_at FROM notes ORDER BY id',
  },
};

/**
 * Reads an old file without changing it: opened read-write so that SQLite removes the WAL and SHM
 * files it makes once it closes, but with every write refused.
 */
function readPreviousFile(kind: PreviousFileKind, path: string): PreviousFile {
  const db = new BetterSqlite3(path, { fileMustExist: true });
  try {
    db.pragma('query_only = ON');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version !== PREVIOUS_SCHEMA_VERSION) throw new Error(`it is at schema version ${version}, not ${PREVIOUS_SCHEMA_VERSION}`);
    const tables = Object.fromEntries(Object.entries(READS[kind]).map(([table, sql]) => [table, db.prepare<[], Row>(sql).all()]));
    return { kind, path, tables };
  } finally {
    db.close();
  }
}

/** Writes a file's rows into the store; a channel the store already has keeps its own history. Returns the channels skipped. */
function writeRows(db: Database, file: PreviousFile): number {
  const rows = (table: string): readonly Row[] => file.tables[table] ?? [];
  switch (file.kind) {
    case 'history': {
      const insertChannel = db.prepare('INSERT INTO history_channels (channel, revision) VALUES (@channel, @revision) ON CONFLICT (channel) DO NOTHING');
      const imported = new Set(rows('channels').flatMap((row) => (insertChannel.run(row).changes === 1 ? [row['channel']] : [])));
      const insertEntry = db.prepare('INSERT INTO history_entries (channel, role, text, author_id, message_id, created_at) VALUES (@channel, @role, @text, @author_id, @message_id, @created_at)');
      for (const row of rows('entries')) if (imported.has(row['channel'])) insertEntry.run(row);
      return rows('channels').length - imported.size;
    }
    case 'memory': {
      const insertNote = db.prepare(
        `INSERT INTO memory_notes (idempotency_key, scope, owner_id, text, created_at)
         VALUES (@idempotency_key, @scope, CASE @scope WHEN 'user' THEN ${userOwnerWithSource('@owner_id')} ELSE @owner_id END, @text, @created_at)
         ON CONFLICT (idempotency_key) DO NOTHING`,
      );
      for (const row of rows('notes')) insertNote.run(row);
      return 0;
    }
    default:
      return assertNever(file.kind);
  }
}

/**
 * Imports the previous layout's separate history and memory files (at their old default paths
 * under `baseDir`) into the store, once: all in one transaction that also records each import, so
 * that a later start imports nothing. The old files are left as they were; one info line per file
 * says it can be deleted. A file that cannot be read is skipped with a warning and tried again at
 * the next start.
 */
export function importPreviousLayout(db: Database, baseDir: string, now: number, logger: Logger): void {
  const done = db.prepare<[string], { what: string }>('SELECT what FROM previous_layout_imports WHERE what = ?');
  const files: PreviousFile[] = [];
  for (const kind of ['history', 'memory'] as const) {
    const path = resolve(baseDir, PREVIOUS_LAYOUT_FILES[kind]);
    if (done.get(kind) !== undefined || !existsSync(path)) continue;
    try {
      files.push(readPreviousFile(kind, path));
    } catch (error) {
      logger.warn({ file: path, cause: causeOf(error) }, `the previous ${kind} file could not be read, so it was not imported; it is tried again at the next start`);
    }
  }
  if (files.length === 0) return;
  const record = db.prepare('INSERT INTO previous_layout_imports (what, file, imported_at) VALUES (?, ?, ?)');
  let skipped: number[];
  try {
    skipped = db
      .transaction(() =>
        files.map((file) => {
          record.run(file.kind, file.path, now);
          return writeRows(db, file);
        }),
      )
      .immediate();
  } catch (error) {
    const named = files.map((file) => file.path);
    logger.warn({ files: named, cause: causeOf(error) }, `the previous layout's files could not be imported, so nothing of them was; they are tried again at the next start: ${named.join(', ')}`);
    return;
  }
  files.forEach((file, index) => {
    const kept = (skipped[index] ?? 0) > 0 ? { channelsAlreadyInStore: skipped[index] } : {};
    logger.info({ file: file.path, ...kept }, `imported the ${file.kind} of the previous layout from ${file.path} into the store file; the old file was left untouched and can be deleted`);
  });
}
