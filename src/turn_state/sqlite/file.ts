import { dirname } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { createPrivateFile, makePrivateDirectory } from '../private_files.js';

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

function migrate(db: Database, migrations: readonly string[], what: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(`the ${what} is at schema version ${current}, newer than this program's ${migrations.length}`);
  }
  if (current === migrations.length) return;
  // Foreign keys off while a step runs (a rebuilt parent table must not cascade), checked before it commits.
  db.pragma('foreign_keys = OFF');
  try {
    migrations.slice(current).forEach((sql, index) => {
      db.transaction(() => {
        db.exec(sql);
        const broken = db.pragma('foreign_key_check') as unknown[];
        if (broken.length > 0) throw new Error(`the ${what} would break ${broken.length} foreign key(s) at schema version ${current + index + 1}`);
        db.pragma(`user_version = ${current + index + 1}`);
      })();
    });
  } finally {
    db.pragma('foreign_keys = ON');
  }
}

/**
 * Why a SQLite file could not be used, in one line for the log: the error's message and SQLite's
 * code, never a stack trace.
 */
export function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = 'code' in error && typeof error.code === 'string' && !error.message.includes(error.code) ? ` (${error.code})` : '';
  return `${error.message}${code}`;
}
