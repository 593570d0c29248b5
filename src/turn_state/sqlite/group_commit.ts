import type { Database } from 'better-sqlite3';
import { setImmediate as afterIo } from 'node:timers';
import { open } from 'node:fs/promises';

/** What became of one write of a group: its value, or the error it threw (its own changes rolled back). */
type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

interface QueuedWrite {
  readonly work: () => unknown;
  settle(outcome: Outcome): void;
}

/**
 * Group commit (DESIGN §7.1, §7.3). SQLite runs on the event loop, so a commit that waited for the
 * disk would stall every channel while hundreds of turns write at once. The writes asked for
 * while the loop is busy run on its next turn in one IMMEDIATE transaction, each in a savepoint
 * of its own: a write that throws rolls back only its own changes and fails alone. The commit
 * skips its own sync; the write-ahead log is then synced off the loop ({@link WalSync}), and only
 * then does each write's promise settle, so nobody acts on a write that is not on disk. When
 * SQLite rolls back the whole transaction, or the commit or the sync fails, every write of the
 * group fails with that error.
 */
export class GroupCommit {
  #queue: QueuedWrite[] = [];
  readonly #syncing = new Set<Promise<void>>();
  readonly #wal: WalSync | undefined;

  constructor(
    private readonly db: Database,
    wal: WalSync | undefined = walSyncOf(db),
  ) {
    this.#wal = wal;
  }

  /** Runs `work` in the next group; resolves once the group is committed and on disk. */
  write<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, settle: (outcome) => (outcome.ok ? resolve(outcome.value as T) : reject(asError(outcome.error))) });
      if (this.#queue.length === 1) afterIo(() => this.flush());
    });
  }

  /** Resolves once every group committed so far is on disk (or has failed): a read after it sees only durable writes. */
  async durable(): Promise<void> {
    await Promise.allSettled([...this.#syncing]);
  }

  /** Commits the queued writes now, as one group; nothing when none waits. */
  flush(): void {
    const group = this.#queue;
    if (group.length === 0) return;
    this.#queue = [];
    let outcomes: Outcome[];
    try {
      outcomes = this.#commit(group);
    } catch (error) {
      for (const queued of group) queued.settle({ ok: false, error });
      return;
    }
    const settleAll = (): void => group.forEach((queued, i) => queued.settle(outcomes[i] ?? { ok: false, error: new Error('a write of the group has no outcome') }));
    if (this.#wal === undefined) return settleAll();
    const synced = this.#wal.sync();
    this.#syncing.add(synced);
    synced.then(settleAll, (error: unknown) => group.forEach((queued) => queued.settle({ ok: false, error }))).finally(() => this.#syncing.delete(synced));
  }

  #commit(group: readonly QueuedWrite[]): Outcome[] {
    const commit = this.db.transaction(() => group.map((queued) => this.#inSavepoint(queued.work)));
    if (this.#wal === undefined) return commit.immediate();
    this.db.pragma('synchronous = NORMAL');
    try {
      return commit.immediate();
    } finally {
      this.db.pragma('synchronous = FULL');
    }
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
