import type pg from 'pg';
import { BackupWithOwnToolsError, storeCallError } from '../errors.js';
import type { Op } from '../operations/instructions.js';
import type { StoreRunner } from '../operations/durable_store.js';
import { missingBlobs, runOnPostgres } from './pg_driver.js';
import { heartbeatInstance } from './pg_instances.js';
import type { PgQueryable } from './pg_pool.js';

/**
 * How the store's operations run on the shared PostgreSQL database (DESIGN §7.7): a write in one
 * transaction on one connection of the pool, a read in one read-only snapshot. The store's own
 * failures — whatever the pool or a statement rejects with — become TurnStateUnavailable (see
 * {@link pgCallError}).
 */
export class PgRunner implements StoreRunner {
  constructor(
    private readonly pool: pg.Pool,
    /** The process whose heartbeat the readiness probe writes. */
    private readonly instanceId: string,
  ) {}

  write<T>(operation: string, op: Op<T>): Promise<T> {
    return this.#translated(operation, () => inTransaction(this.pool, (db) => runOnPostgres(op, db)));
  }

  read<T>(operation: string, op: Op<T>): Promise<T> {
    return this.#translated(operation, () => inTransaction(this.pool, (db) => runOnPostgres(op, db), 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'));
  }

  probe(): Promise<void> {
    return this.#translated('probe', () => inTransaction(this.pool, (db) => heartbeatInstance(db, this.instanceId)));
  }

  storageProblems(): Promise<string[]> {
    return this.#translated('check integrity', () => missingBlobs(driven(this.pool)));
  }

  /**
   * Refuses: a database server's data is copied with its own tools (`pg_dump`), which see every
   * process's writes consistently; nothing is written at the path asked for.
   */
  backup(): Promise<never> {
    return Promise.reject(new BackupWithOwnToolsError('postgres', 'pg_dump'));
  }

  /** Nothing to let go of: the pool belongs to whoever opened it, who ends it after closing the store. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  async #translated<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw pgCallError(operation, error);
    }
  }
}

/**
 * `work` in one transaction opened by `begin` on one connection of `pool`, committed when it
 * resolves and rolled back when it rejects, without the error translation; every error of the
 * pool or the connection is known from then on as the driver's.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (db: PgQueryable) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect().catch(fromDriver);
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
