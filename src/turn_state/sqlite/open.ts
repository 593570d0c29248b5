import { dirname, join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { openInMemoryDatabase, openSqliteFile } from './file.js';
import { TURN_STORE_MIGRATIONS } from './schema.js';

/**
 * Opens (creating if needed) the store's one database file: turns, history and memory. `synchronous=FULL` matters most here: a RUNNING
 * mark that a power cut could erase would let a started write run twice.
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
