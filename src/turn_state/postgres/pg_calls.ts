import type pg from 'pg';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { storeCallError } from '../errors.js';
import { reportSweep } from '../sweep_report.js';
import type { RetentionSweepResult, StartupSweepResult } from '../turn_store.js';
import type { Lease } from '../turn_types.js';
import type { PgQueryable } from './pg_pool.js';

/**
 * How every call of the PostgreSQL store runs (DESIGN §7.2, §7.3): a read on any pooled
 * connection, a write in one transaction on one connection. The store's own failures — whatever
 * the pool or a statement rejects with — become TurnStateUnavailable; a fence, ledger or intent
 * refusal stays itself, so the engine can tell a superseded owner from a dead store; any other
 * error is the caller's own and passes as it is.
 */
export class PgCalls {
  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  /**
   * `work` in one transaction opened by `begin`, committed when it resolves and rolled back when
   * it rejects, without the error translation.
   */
  async inTransaction<T>(work: (db: PgQueryable) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    const client = await this.pool.connect().catch(fromDriver);
    try {
      const db = driven(client);
      await db.query(begin);
      try {
        const result = await work(db);
        await db.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } finally {
      client.release();
    }
  }

  /** A write; when it rolls back, `lease` is put back as it was, so the owner's copy never runs ahead of the row. */
  write<T>(operation: string, work: (db: PgQueryable) => Promise<T>, lease?: Lease): Promise<T> {
    const before = lease === undefined ? undefined : { revision: lease.revision, expiresAt: lease.expiresAt };
    return this.translated(operation, async () => {
      try {
        return await this.inTransaction(work);
      } catch (error) {
        if (lease !== undefined && before !== undefined) Object.assign(lease, before);
        throw error;
      }
    });
  }

  /** A read on the pool. */
  read<T>(operation: string, work: (db: PgQueryable) => Promise<T>): Promise<T> {
    return this.translated(operation, () => work(driven(this.pool)));
  }

  /** A read of several statements that must agree with each other: one read-only snapshot. */
  snapshot<T>(operation: string, work: (db: PgQueryable) => Promise<T>): Promise<T> {
    return this.translated(operation, () => this.inTransaction(work, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'));
  }

  /** A sweep: a write whose counts are logged for the operators (DESIGN §10). */
  async sweep<T extends StartupSweepResult | RetentionSweepResult>(operation: string, work: (db: PgQueryable) => Promise<T>): Promise<T> {
    const startedAt = this.clock.monotonicNow();
    const result = await this.write(operation, work);
    reportSweep(this.logger, operation, this.clock.monotonicNow() - startedAt, result);
    return result;
  }

  async translated<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw pgCallError(operation, error);
    }
  }
}

/** What an error thrown by a call of the store stands for ({@link storeCallError}): whatever the pool or a statement rejected with is the store failing. */
export function pgCallError(operation: string, error: unknown): Error {
  return storeCallError(operation, error, (thrown) => thrown instanceof Error && DRIVER_ERRORS.has(thrown));
}

/** The errors the pool and its connections rejected with: the store failing, whatever their class. */
const DRIVER_ERRORS = new WeakSet<Error>();

/** Rethrows what the pool or a connection rejected with, known from then on as the store failing. */
function fromDriver(error: unknown): never {
  // node-postgres rejects with Error objects only.
  DRIVER_ERRORS.add(error as Error);
  throw error;
}

/** `db`, each of whose statements' errors is known to come from the driver. */
function driven(db: PgQueryable): PgQueryable {
  const query = (...args: unknown[]): Promise<unknown> => (db.query as (...args: unknown[]) => Promise<unknown>).apply(db, args).catch(fromDriver);
  return { query: query as PgQueryable['query'] };
}
