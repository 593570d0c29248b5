import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { StoreInUseError, type StoreHolder } from '../errors.js';
import { createPrivateFile, makePrivateDirectory, PRIVATE_FILE_MODE } from '../private_files.js';

/** A store file held by this process until `release`. */
export interface StoreLock {
  /** Lets the next bot process take the file; releasing twice is harmless. */
  release(): void;
}

/** The files beside the store that lock it and name its holder. */
export function storeLockFiles(dbPath: string): { readonly lock: string; readonly holder: string } {
  return { lock: `${dbPath}.lock`, holder: `${dbPath}.lock.json` };
}

function isBusy(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'SQLITE_BUSY';
}

function readHolder(path: string): StoreHolder | undefined {
  try {
    const record: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof record !== 'object' || record === null) return undefined;
    const { pid, host, started_at: startedAt } = record as Record<string, unknown>;
    if (typeof pid !== 'number' || typeof host !== 'string' || typeof startedAt !== 'string') return undefined;
    return { pid, host, startedAt };
  } catch {
    return undefined;
  }
}

/**
 * Takes the store file at `dbPath` for this bot process (DESIGN §7.7), before anything reads or
 * sweeps it, and records this process (its pid, host and `now`) as the holder.
 * @throws {StoreInUseError} when another bot process holds the file.
 * @throws when the lock file cannot be made or opened.
 */
export function lockStoreFile(dbPath: string, now: number): StoreLock {
  const files = storeLockFiles(dbPath);
  makePrivateDirectory(dirname(dbPath));
  createPrivateFile(files.lock);
  // SQLite's write lock on a file of its own: the kernel drops it when the process dies, however
  // it dies, so no stale lock is left to judge and no pid can be mistaken for a live holder. The
  // store file itself is not locked, so the operator commands still read and write it.
  const db: Database = new BetterSqlite3(files.lock, { timeout: 0 });
  try {
    db.pragma('journal_mode = MEMORY');
    db.exec('BEGIN IMMEDIATE');
  } catch (error) {
    db.close();
    if (isBusy(error)) throw new StoreInUseError(dbPath, readHolder(files.holder));
    throw error;
  }
  try {
    const record = { pid: process.pid, host: hostname(), started_at: new Date(now).toISOString() };
    writeFileSync(`${files.holder}.tmp`, `${JSON.stringify(record)}\n`, { mode: PRIVATE_FILE_MODE });
    renameSync(`${files.holder}.tmp`, files.holder);
  } catch (error) {
    db.close();
    throw error;
  }
  return {
    release() {
      if (!db.open) return;
      rmSync(files.holder, { force: true });
      db.close();
    },
  };
}
