import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { migrate } from './sqlite_schema.js';

/**
 * Opens (creating if needed) the turn database with the production pragmas: WAL with
 * `synchronous=FULL` (a RUNNING mark that a power cut could erase would let a started write run
 * twice), a busy timeout, foreign keys, and the schema migrated. The directory is made 0700 and
 * the file 0600 before SQLite opens it, so the WAL and SHM files it creates inherit 0600.
 */
export function openTurnDatabase(dbPath: string): Database {
  const dir = dirname(dbPath);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  closeSync(openSync(dbPath, 'a', 0o600));
  chmodSync(dbPath, 0o600);
  const db = new BetterSqlite3(dbPath);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The blob directory that belongs to a database file. */
export function blobDirectoryFor(dbPath: string): string {
  return join(dirname(dbPath), 'blobs');
}
