import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import { BlobStore } from '../blob_store.js';
import { storeCallError } from '../errors.js';
import { now, query, type Op } from '../operations/instructions.js';
import type { CommitMode, StoreRunner } from '../operations/durable_store.js';
import type { BackupCopy } from '../operator_store.js';
import { createPrivateFile, makePrivateDirectory } from '../private_files.js';
import { GroupCommit } from './group_commit.js';
import { blobDirectoryFor } from './file.js';
import { SqliteDriver } from './sqlite_driver.js';
import { WAL_LIMITS, WalCheckpointer, type WalLimits } from './wal_checkpointer.js';
import { WalFile, WalSyncFailedError } from './wal_file.js';

/**
 * How the store's operations run on its SQLite file (DESIGN §7.1, §7.3): a write in a savepoint of
 * its own in a group commit — the writes asked for in one turn of the event loop share one commit,
 * and the log is synced off the loop before any of them is answered — and a read once every write
 * before it is on disk. The connection commits without syncing (`synchronous = NORMAL`): every
 * commit is followed by an `fdatasync` of the log ({@link WalFile}) before it is answered, and the
 * log is checkpointed off the loop ({@link WalCheckpointer}). The store's own failures become
 * TurnStateUnavailable (see {@link sqliteCallError}).
 */
export class SqliteRunner implements StoreRunner {
  readonly #group: GroupCommit;
  readonly #driver: SqliteDriver;
  readonly #wal: WalFile | undefined;
  readonly #checkpoints: WalCheckpointer | undefined;
  #closed: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    blobs: BlobStore | undefined,
    clock: Clock,
    walLimits: WalLimits = WAL_LIMITS,
  ) {
    this.#wal = WalFile.of(db);
    if (this.#wal !== undefined) {
      db.pragma('synchronous = NORMAL');
      this.#checkpoints = new WalCheckpointer(db, this.#wal, walLimits);
    }
    this.#group = new GroupCommit(db, this.#wal, this.#checkpoints);
    this.#driver = new SqliteDriver(db, blobs, clock);
  }

  /** Checkpoints of the log done off the event loop so far. */
  get checkpoints(): number {
    return this.#checkpoints?.checkpoints ?? 0;
  }

  async write<T>(operation: string, op: Op<T>, commit: CommitMode = 'grouped'): Promise<T> {
    try {
      // In turn with the reads asked for before it.
      if (commit === 'alone') await this.#group.durable();
      // Alone, a write that finds no other synced on the loop at once; with company, it joins the group and leaves the loop free.
      if (commit === 'alone' && this.#group.idle) return this.#group.commitNow(() => this.#driver.run(op));
      return await this.#group.write(() => this.#driver.run(op));
    } catch (error) {
      throw sqliteCallError(this.db, operation, error);
    }
  }

  async read<T>(operation: string, op: Op<T>): Promise<T> {
    await this.#group.durable();
    try {
      return this.#driver.run(op);
    } catch (error) {
      throw sqliteCallError(this.db, operation, error);
    }
  }

  probe(): Promise<void> {
    return this.write('probe', probeRow());
  }

  async storageProblems(): Promise<string[]> {
    await this.#group.durable();
    return this.#driver.storageProblems();
  }

  /**
   * SQLite's online backup of the file, then the blobs its rows refer to beside it: a blob is never
   * changed once written, so the copy is consistent with the copied rows.
   */
  async backup(path: string): Promise<BackupCopy> {
    if (existsSync(path)) throw new Error(`${path} already exists; a backup never overwrites a file`);
    makePrivateDirectory(dirname(path));
    createPrivateFile(path);
    await this.#group.durable();
    await this.db.backup(path);
    const copies = BlobStore.open(blobDirectoryFor(path));
    const blobs = this.#driver.blobs;
    if (blobs !== undefined) for (const digest of this.#driver.referencedBlobs()) if (blobs.has(digest)) copies.put(blobs.get(digest));
    return { blobs: copies.dir };
  }

  /** Commits the writes still waiting for the event loop's next turn, waits until they are on disk, and closes the connection. */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    if (!this.db.open) return;
    this.#group.flush();
    await this.#group.durable();
    // The worker's connection goes first, so that this one is the last and SQLite checkpoints the whole log and deletes it.
    await this.#checkpoints?.close();
    this.db.close();
    this.#wal?.close();
  }
}

/** The one row a readiness probe writes. */
function* probeRow(): Op<void> {
  yield* query('INSERT INTO store_probe (id, probed_at) VALUES (1, @now) ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at', { now: yield* now() });
}

/**
 * What an error thrown by a call on `db` stands for ({@link storeCallError}): SQLite's own errors,
 * a failed sync of its log, and any error once the connection is closed, are the store failing.
 */
export function sqliteCallError(db: Database, operation: string, error: unknown): Error {
  return storeCallError(operation, error, (thrown) => thrown instanceof BetterSqlite3.SqliteError || thrown instanceof WalSyncFailedError || !db.open);
}
