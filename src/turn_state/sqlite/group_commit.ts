import type { Database } from 'better-sqlite3';
import { setImmediate as afterIo } from 'node:timers';

/** What became of one write of a group: its value, or the error it threw (its own changes rolled back). */
type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

interface QueuedWrite {
  readonly work: () => unknown;
  settle(outcome: Outcome): void;
}

/** A committed group waiting for the log to reach the disk. */
interface UnsyncedGroup {
  synced(): void;
  failed(error: unknown): void;
}

/** Makes what the connection has committed so far durable. */
export interface WalSync {
  /** Off the event loop. */
  sync(): Promise<void>;
  /** On the calling thread, before it returns. */
  syncNow(): void;
}

/** What the group commit tells about the log, and what makes its writes wait (the log's checkpoints). */
export interface CommitPacing {
  /** The log was just synced. */
  synced(): void;
  /** What the next group waits for before it commits, if anything. */
  held(): Promise<void> | undefined;
}

/**
 * Group commit (DESIGN §7.1, §7.3). SQLite runs on the event loop, so a commit that waited for the
 * disk would stall every channel while hundreds of turns write at once. The writes asked for
 * while the loop is busy run on its next turn in one IMMEDIATE transaction, each in a savepoint
 * of its own: a write that throws rolls back only its own changes and fails alone. The connection
 * commits without syncing (`synchronous = NORMAL`); the write-ahead log is then synced off the
 * loop ({@link WalSync}), and only then does each write's promise settle, so nobody acts on a
 * write that is not on disk. One sync runs at a time: the groups committed while it runs share the
 * next one. When SQLite rolls back the whole transaction, or the commit or the sync fails, every
 * write of the group fails with that error.
 *
 * A log whose sync failed once is never trusted again: the kernel may have dropped the pages it
 * could not write and report the next sync a success, and SQLite's recovery stops at the first
 * frame that is not whole, so a later write answered as durable could be lost with them. From then
 * on every write fails with that first error, committing nothing, until the program is restarted
 * and SQLite recovers what the disk holds; reads go on.
 */
export class GroupCommit {
  #queue: QueuedWrite[] = [];
  #unsynced: UnsyncedGroup[] = [];
  #syncing: Promise<void> | undefined;
  #committedGroups = 0;
  #settledGroups = 0;
  #durableWaiters: { readonly upTo: number; resolve(): void }[] = [];
  #syncFailure: { readonly error: unknown } | undefined;

  constructor(
    private readonly db: Database,
    private readonly wal: WalSync | undefined,
    private readonly pacing?: CommitPacing,
  ) {}

  /** Runs `work` in the next group; resolves once the group is committed and on disk. */
  write<T>(work: () => T): Promise<T> {
    if (this.#syncFailure !== undefined) return Promise.reject(asError(this.#syncFailure.error));
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, settle: (outcome) => (outcome.ok ? resolve(outcome.value as T) : reject(asError(outcome.error))) });
      if (this.#queue.length === 1) this.#flushSoon();
    });
  }

  /** Whether no write waits to be committed or synced. */
  get idle(): boolean {
    return this.#queue.length === 0 && this.#syncing === undefined;
  }

  /** Resolves once every group committed so far is on disk (or has failed): a read after it sees only durable writes. */
  durable(): Promise<void> {
    const upTo = this.#committedGroups;
    if (this.#settledGroups >= upTo) return Promise.resolve();
    return new Promise((resolve) => this.#durableWaiters.push({ upTo, resolve }));
  }

  /**
   * Runs `work` in a transaction of its own and syncs the log before it returns, on the calling
   * thread: for a write that finds the store {@link idle} and would rather not wait for the loop.
   * @throws what `work` throws, its changes rolled back; or the sync's failure, after which every write fails.
   */
  commitNow<T>(work: () => T): T {
    if (this.#syncFailure !== undefined) throw asError(this.#syncFailure.error);
    const value = this.db.transaction(work).immediate();
    if (this.wal === undefined) return value;
    try {
      this.wal.syncNow();
    } catch (error) {
      this.#syncFailure = { error };
      throw error;
    }
    this.pacing?.synced();
    return value;
  }

  /** Commits the queued writes now, as one group; nothing when none waits. */
  flush(): void {
    const group = this.#queue;
    if (group.length === 0) return;
    this.#queue = [];
    const failure = this.#syncFailure;
    if (failure !== undefined) {
      for (const queued of group) queued.settle({ ok: false, error: failure.error });
      return;
    }
    let outcomes: Outcome[];
    try {
      outcomes = this.db.transaction(() => group.map((queued) => this.#inSavepoint(queued.work))).immediate();
    } catch (error) {
      for (const queued of group) queued.settle({ ok: false, error });
      return;
    }
    const synced = (): void => group.forEach((queued, i) => queued.settle(outcomes[i] ?? { ok: false, error: new Error('a write of the group has no outcome') }));
    if (this.wal === undefined) return synced();
    this.#committedGroups += 1;
    this.#unsynced.push({ synced, failed: (error) => group.forEach((queued) => queued.settle({ ok: false, error })) });
    this.#syncing ??= this.#syncWhileCommitted(this.wal);
  }

  #flushSoon(): void {
    const held = this.pacing?.held();
    if (held === undefined) afterIo(() => this.flush());
    else void held.then(() => this.#flushSoon());
  }

  async #syncWhileCommitted(wal: WalSync): Promise<void> {
    while (this.#unsynced.length > 0) {
      const groups = this.#unsynced;
      this.#unsynced = [];
      try {
        if (this.#syncFailure !== undefined) throw this.#syncFailure.error;
        await wal.sync();
        this.pacing?.synced();
        for (const group of groups) group.synced();
      } catch (error) {
        this.#syncFailure ??= { error };
        for (const group of groups) group.failed(error);
      }
      this.#settledGroups += groups.length;
      const waiting = this.#durableWaiters;
      this.#durableWaiters = waiting.filter((waiter) => waiter.upTo > this.#settledGroups);
      for (const waiter of waiting) if (waiter.upTo <= this.#settledGroups) waiter.resolve();
    }
    this.#syncing = undefined;
  }

  #inSavepoint(work: () => unknown): Outcome {
    try {
      return { ok: true, value: this.db.transaction(work)() };
    } catch (error) {
      // SQLite ended the whole transaction (an I/O error, say): what the group wrote before is gone too.
      if (!this.db.inTransaction) throw error;
      return { ok: false, error };
    }
  }
}

function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}
