import { closeSync, fdatasync, fdatasyncSync, fstatSync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database } from 'better-sqlite3';

/**
 * The write-ahead log of one connection, held open for the connection's life so that making its
 * commits durable is one `fdatasync` and nothing else (DESIGN §7.1). Commits that skip their own
 * sync (`synchronous = NORMAL`) are durable once it returns: their frames are in the log, and
 * SQLite reads back every frame up to the last commit it finds whole. `fdatasync` is enough: it
 * writes the file's data and the size and block map needed to read it back; what it skips (times)
 * SQLite never reads. The log keeps its inode while the connection is open: SQLite deletes it only
 * when the last connection closes, and a checkpoint or `journal_size_limit` only truncates it.
 */
export class WalFile {
  readonly #fd: number;

  private constructor(readonly path: string) {
    this.#fd = openSync(path, 'r');
    // SQLite syncs the directory of a log it created at the log's first sync of its own, which a
    // connection that never syncs the log itself would not reach: a new log's name is made durable here.
    syncDirectory(dirname(path));
  }

  /** The log of `db`, opened; `undefined` for a database with no log file (in memory, or not in WAL mode). */
  static of(db: Database): WalFile | undefined {
    if (db.memory || db.pragma('journal_mode', { simple: true }) !== 'wal') return undefined;
    return new WalFile(`${db.name}-wal`);
  }

  /**
   * Makes everything committed so far durable, on libuv's thread pool.
   * @throws {WalSyncFailedError} when the disk refuses.
   */
  sync(): Promise<void> {
    return new Promise((resolve, reject) => fdatasync(this.#fd, (error) => (error === null ? resolve() : reject(new WalSyncFailedError(this.path, error)))));
  }

  /**
   * Makes everything committed so far durable before it returns, on the calling thread.
   * @throws {WalSyncFailedError} when the disk refuses.
   */
  syncNow(): void {
    try {
      fdatasyncSync(this.#fd);
    } catch (error) {
      throw new WalSyncFailedError(this.path, error);
    }
  }

  /** The log's size in bytes. */
  size(): number {
    return fstatSync(this.#fd).size;
  }

  /** Lets go of the log; its connection may have deleted it already. */
  close(): void {
    closeSync(this.#fd);
  }
}

/** The write-ahead log at `path` could not be synced: the commits since the last sync may not be on disk. */
export class WalSyncFailedError extends Error {
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super(`the write-ahead log ${path} could not be synced: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'WalSyncFailedError';
  }
}

function syncDirectory(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
