import BetterSqlite3, { type Database } from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { storeCallError } from '../errors.js';
import type { RetentionSweepResult, StartupSweepResult } from '../turn_store.js';
import type { Lease } from '../turn_types.js';
import { reportSweep } from '../sweep_report.js';
import { GroupCommit } from './group_commit.js';

/**
 * How every call of the SQLite store runs (DESIGN §7.2, §7.3): a read as it is, a write in a
 * transaction of its own, or a savepoint of its own in a group commit. The store's own failures
 * become TurnStateUnavailable; a fence, ledger or intent refusal stays itself, so the engine can
 * tell a superseded owner from a dead store; any other error is the caller's own (see
 * {@link sqliteCallError}).
 */
export class StoreCalls {
  readonly #group: GroupCommit;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {
    this.#group = new GroupCommit(db);
  }

  /** `work` in one IMMEDIATE transaction, without the error translation (admission answers its own failures). */
  inWriteTransaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  /**
   * A write, committed with the others asked for before the event loop's next turn; when it
   * fails, `lease` is put back as it was, so the owner's copy never runs ahead of the row.
   */
  async write<T>(operation: string, work: () => T, lease?: Lease): Promise<T> {
    const before = lease === undefined ? undefined : { revision: lease.revision, expiresAt: lease.expiresAt };
    try {
      return await this.#group.write(work);
    } catch (error) {
      if (lease !== undefined && before !== undefined) Object.assign(lease, before);
      throw sqliteCallError(this.db, operation, error);
    }
  }

  /** Commits the writes still waiting for the event loop's next turn and waits until they are on disk, as before the connection closes. */
  async settle(): Promise<void> {
    this.#group.flush();
    await this.#group.durable();
  }

  /** A sweep: a write whose counts are logged for the operators (DESIGN §10). */
  async sweep<T extends StartupSweepResult | RetentionSweepResult>(operation: string, work: () => T): Promise<T> {
    const startedAt = this.clock.monotonicNow();
    const result = await this.write(operation, work);
    reportSweep(this.logger, operation, this.clock.monotonicNow() - startedAt, result);
    return result;
  }

  /** A read, once every write committed before it is on disk: nothing is read that a power cut could still take back. */
  async run<T>(operation: string, work: () => T): Promise<T> {
    await this.#group.durable();
    try {
      return work();
    } catch (error) {
      throw sqliteCallError(this.db, operation, error);
    }
  }
}

/**
 * What an error thrown by a call on `db` stands for ({@link storeCallError}): SQLite's own errors,
 * and any error once the connection is closed, are the store failing.
 */
export function sqliteCallError(db: Database, operation: string, error: unknown): Error {
  return storeCallError(operation, error, (thrown) => thrown instanceof BetterSqlite3.SqliteError || !db.open);
}
