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

/**
 * How the store's operations run on its SQLite file (DESIGN §7.1, §7.3): a write in a savepoint of
 * its own in a group commit — the writes asked for in one turn of the event loop share one commit,
 * and the log is synced off the loop before any of them is answered — and a read once every write
 * before it is on disk. The store's own failures become TurnStateUnavailable (see
 * {@link sqliteCallError}).
 */
export class SqliteRunner implements StoreRunner {
  readonly #group: GroupCommit;
  readonly #driver: SqliteDriver;

  constructor(
    private readonly db: Database,
    blobs: BlobStore | undefined,
    clock: Clock,
  ) {
    this.#group = new GroupCommit(db);
    this.#driver = new SqliteDriver(db, blobs, clock);
  }

  async write<T>(operation: string, op: Op<T>, commit: CommitMode = 'grouped'): Promise<T> {
    try {
      if (commit === 'alone') {
        // In turn with the reads asked for before it; the connection's own `synchronous = FULL` makes the commit durable before it returns.
        await this.#group.durable();
        return this.db.transaction(() => this.#driver.run(op)).immediate();
      }
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
  async close(): Promise<void> {
    if (!this.db.open) return;
    this.#group.flush();
    await this.#group.durable();
    this.db.close();
  }
}

/** The one row a readiness probe writes. */
function* probeRow(): Op<void> {
  yield* query('INSERT INTO store_probe (id, probed_at) VALUES (1, @now) ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at', { now: yield* now() });
}

/**
 * What an error thrown by a call on `db` stands for ({@link storeCallError}): SQLite's own errors,
 * and any error once the connection is closed, are the store failing.
 */
export function sqliteCallError(db: Database, operation: string, error: unknown): Error {
  return storeCallError(operation, error, (thrown) => thrown instanceof BetterSqlite3.SqliteError || !db.open);
}
