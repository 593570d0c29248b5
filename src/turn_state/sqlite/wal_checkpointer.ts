import type { Database } from 'better-sqlite3';
import { CheckpointWorker } from './checkpoint_worker.js';
import type { CommitPacing } from './group_commit.js';
import type { WalFile } from './wal_file.js';

/** Sizes of the write-ahead log, in bytes, at which the store acts. */
export interface WalLimits {
  /** Past this the log is checkpointed, off the event loop; SQLite also truncates the log back to it when it starts the log over. */
  readonly checkpointAt: number;
  /** Past this the writes wait while a checkpoint catches up with the log, so it cannot grow without end. */
  readonly holdWritesAt: number;
}

/** SQLite's own default (1,000 pages of 4 KiB) for a checkpoint, and sixteen times that before writes wait. */
export const WAL_LIMITS: WalLimits = { checkpointAt: 4 * 1024 * 1024, holdWritesAt: 64 * 1024 * 1024 };

/**
 * Keeps the write-ahead log of the connection `db` short without the connection checkpointing it
 * on the event loop (DESIGN §7.1). SQLite's automatic checkpoint is turned off; once the log has
 * grown past {@link WalLimits.checkpointAt}, a worker thread ({@link CheckpointWorker}), started
 * then and kept until {@link close}, checkpoints it while the writes go on, again and again while
 * the log stays long. A PASSIVE checkpoint that writes overtake never catches up, and SQLite
 * starts the log over only once every frame is in the database file; so past
 * {@link WalLimits.holdWritesAt} the next group of writes waits for one checkpoint with no write
 * beside it. Should the worker fail, the connection checkpoints itself, as SQLite would have.
 */
export class WalCheckpointer implements CommitPacing {
  #worker: CheckpointWorker | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #holding = false;
  #closed = false;
  #checkpoints = 0;

  constructor(
    private readonly db: Database,
    private readonly wal: WalFile,
    private readonly limits: WalLimits = WAL_LIMITS,
  ) {
    db.pragma('wal_autocheckpoint = 0');
    db.pragma(`journal_size_limit = ${limits.checkpointAt}`);
  }

  /** Checkpoints the worker has finished. */
  get checkpoints(): number {
    return this.#checkpoints;
  }

  synced(): void {
    const size = this.wal.size();
    if (size <= this.limits.checkpointAt || this.#closed) return;
    if (size > this.limits.holdWritesAt) this.#holding = true;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    this.#running = this.#checkpointWhileAsked().finally(() => (this.#running = undefined));
  }

  held(): Promise<void> | undefined {
    return this.#holding ? this.#running : undefined;
  }

  /** Resolves once no checkpoint runs or is asked for. */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  /** Waits for the checkpoint that runs and ends the worker; the connection's own close checkpoints what is left. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.idle();
    await this.#worker?.close();
    this.#worker = undefined;
  }

  async #checkpointWhileAsked(): Promise<void> {
    do {
      this.#again = false;
      const holding = this.#holding;
      await this.#checkpoint();
      if (holding) this.#holding = false;
    } while (this.#again && !this.#closed);
  }

  async #checkpoint(): Promise<void> {
    try {
      this.#worker ??= new CheckpointWorker(this.db.name);
      await this.#worker.checkpoint();
      this.#checkpoints += 1;
    } catch {
      const failed = this.#worker;
      this.#worker = undefined;
      await failed?.close();
      this.#checkpointOnTheConnection();
    }
  }

  #checkpointOnTheConnection(): void {
    try {
      if (this.db.open) this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // The next write meets whatever broke the file, and fails with it.
    }
  }
}
