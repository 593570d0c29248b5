import { dirname, join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { openSqliteFile } from './file.js';
import { TURN_STORE_MIGRATIONS } from './schema.js';

/**
 * Opens (creating if needed) the turn database. `synchronous=FULL` matters most here: a RUNNING
 * mark that a power cut could erase would let a started write run twice.
 */
export function openTurnDatabase(dbPath: string): Database {
  return openSqliteFile(dbPath, TURN_STORE_MIGRATIONS, 'turn store');
}

/** The blob directory that belongs to a database file. */
export function blobDirectoryFor(dbPath: string): string {
  return join(dirname(dbPath), 'blobs');
}
