import { dirname, join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { openInMemoryDatabase, openSqliteFile } from './file.js';
import { TURN_STORE_MIGRATIONS } from './schema.js';

/**
 * Opens (creating if needed) the store's one database file: turns, history and memory. Durability
 * matters most here: a RUNNING mark that a power cut could erase would let a started write run
 * twice. Every commit is synced (`synchronous=FULL`), but for the turn store's grouped writes,
 * which sync the log themselves before answering (group_commit.ts).
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
export type ReadOnlyTurnDatabase =
  | { readonly kind: 'opened'; readonly db: Database }
  | { readonly kind: 'other_version'; readonly version: number; readonly expected: number };

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
