import { dirname, join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { createPrivateFile, makePrivateDirectory } from '../private_files.js';
import { migrate, TURN_STORE_MIGRATIONS } from './migrations.js';

/**
 * Opens (creating if needed) one of the bot's SQLite files with the production settings: missing
 * directories created 0700 and a missing file 0600 before SQLite opens it, a directory or file
 * that already existed keeping its mode (SQLite gives the WAL and SHM files it creates the mode of
 * the database file, so those of a file made here are 0600 too); WAL with
 * `synchronous=FULL` (a committed write survives a power cut); a busy timeout; foreign keys; the
 * whole file checked (`quick_check`), so that a damaged one is refused here instead of failing
 * the bot at its first read; and the schema brought to the newest of `migrations` by
 * `user_version`, each step in its own transaction.
 * @throws when the file cannot be opened, is damaged, or was written by a newer version of this
 *   program (`what` names the store in those messages).
 */
export function openSqliteFile(dbPath: string, migrations: readonly string[], what: string): Database {
  makePrivateDirectory(dirname(dbPath));
  createPrivateFile(dbPath);
  const db = new BetterSqlite3(dbPath);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    const check = db.pragma('quick_check', { simple: true }) as string;
    if (check !== 'ok') throw new Error(`the ${what} is damaged: ${check.replace(/\s*\n\s*/g, '; ')}`);
    migrate(db, migrations, what);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * An in-memory database with the schema of `migrations`: the same tables as a file, kept only
 * until it is closed.
 */
export function openInMemoryDatabase(migrations: readonly string[], what: string): Database {
  const db = new BetterSqlite3(':memory:');
  db.pragma('foreign_keys = ON');
  migrate(db, migrations, what);
  return db;
}

/**
 * Opens (creating if needed) the store's one database file: turns, history and memory. Durability
 * matters most here: a RUNNING mark that a power cut could erase would let a started write run
 * twice. Every commit is synced (`synchronous=FULL`) until the store's runner takes the
 * connection: it commits with `synchronous=NORMAL` and syncs the log itself before answering
 * any write (sqlite_runner.ts).
 */
export function openTurnDatabase(dbPath: string): Database {
  return openSqliteFile(dbPath, TURN_STORE_MIGRATIONS, 'turn store');
}

/** The blob directory that belongs to a database file. */
export function blobDirectoryFor(dbPath: string): string {
  return join(dirname(dbPath), 'blobs');
}

/** The store's schema in memory, for history and memory notes when the file is off or cannot open. */
export function openInMemoryTurnDatabase(): Database {
  return openInMemoryDatabase(TURN_STORE_MIGRATIONS, 'in-memory store');
}

/** The store file opened read-only, or why it cannot be read as it is: another version of this program wrote it. */
export type ReadOnlyTurnDatabase = { readonly kind: 'opened'; readonly db: Database } | { readonly kind: 'other_version'; readonly version: number; readonly expected: number };

/**
 * Opens an existing store file read-only, changing nothing in it: not even its schema, so one at
 * another version than this program's is not opened.
 * @throws when the file does not exist or cannot be read.
 */
export function openTurnDatabaseReadOnly(dbPath: string): ReadOnlyTurnDatabase {
  const db = new BetterSqlite3(dbPath, { readonly: true, fileMustExist: true });
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version === TURN_STORE_MIGRATIONS.length) return { kind: 'opened', db };
    db.close();
    return { kind: 'other_version', version, expected: TURN_STORE_MIGRATIONS.length };
  } catch (error) {
    db.close();
    throw error;
  }
}
