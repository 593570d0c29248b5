import type { Database } from 'better-sqlite3';
import { open } from 'node:fs/promises';

/** Makes what the connection has committed so far durable, off the event loop. */
export interface WalSync {
  sync(): Promise<void>;
}

/**
 * The write-ahead log of `db` flushed to disk by an fsync on libuv's thread pool. Commits that
 * skip their own sync (`synchronous = NORMAL`) are durable once it resolves: their frames are in
 * the log, and SQLite reads back every frame up to the last commit it finds whole. `undefined`
 * for a database with no log file (in memory), whose commits have nothing to make durable.
 */
export function walSyncOf(db: Database): WalSync | undefined {
  if (db.memory || db.pragma('journal_mode', { simple: true }) !== 'wal') return undefined;
  const walPath = `${db.name}-wal`;
  return {
    async sync() {
      const wal = await open(walPath, 'r');
      try {
        await wal.sync();
      } finally {
        await wal.close();
      }
    },
  };
}
