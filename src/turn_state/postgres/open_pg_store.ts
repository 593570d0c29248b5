import type pg from 'pg';
import type { Clock } from '../../core/clock.js';
import { durableStore, keptStores, type DurablePorts, type DurableStoreOptions } from '../operations/durable_store.js';
import { PgRunner } from './pg_runner.js';
import type { IdFactory } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import { causeOf } from '../errors.js';
import type { OpenedStore, StoreAccess } from '../opened_store.js';
import type { TurnStoreTimings } from '../store_options.js';
import { registerInstance, stopInstance } from './pg_instances.js';
import { migratePg, PG_MIGRATIONS } from './pg_migrations.js';
import { openPgPool, type PgConnection } from './pg_pool.js';

export { isPgUnreachable, pgRefusal } from './pg_pool.js';

/** How to open the shared store. */
export interface PgStoreOptions extends TurnStoreTimings {
  readonly connection: PgConnection;
  readonly clock: Clock;
  readonly ids: IdFactory;
  readonly logger: Logger;
  /** The Discord shards this process serves, as the registry shows them; `null` when it serves none. */
  readonly shards: string | null;
}

/** The shared store, opened for one process: every port on one pool, and the process's registry id. */
export interface OpenedPgStore extends OpenedStore {
  readonly instanceId: string;
}

/** What the ports of one process on the shared store need. */
export type PgPortsOptions = Omit<DurableStoreOptions, 'ownerlessAtStart'>;

/**
 * Every port of the store on `pool` for the process `options.instanceId` (DESIGN §7.7): its leases
 * are its own, and at its start the turns without a live owner are its own ACTIVE ones and those
 * whose lease expired, never another process's live turn.
 */
export function pgPortsOn(pool: pg.Pool, options: PgPortsOptions): DurablePorts {
  return durableStore(new PgRunner(pool, options.instanceId), { ...options, ownerlessAtStart: { kind: 'own', instanceId: options.instanceId } });
}

/** The conversation history, memory notes and chosen models alone on `pool`, as a process that takes no lease uses them. */
export function pgKeptStoresOn(pool: pg.Pool): ReturnType<typeof keptStores> {
  return keptStores(new PgRunner(pool, 'kept'));
}

/**
 * Opens the PostgreSQL store for this process (DESIGN §7.7): a pool on `connection`, the schema
 * brought to this program's version under an advisory lock, the process registered under a new
 * instance id that owns the leases it takes, and every port on the pool. Closing records a clean
 * stop in the registry and ends the pool. An idle connection the server drops is logged and
 * replaced; it never stops the process.
 * @throws when the database cannot be reached or its schema is newer than this program.
 */
export async function openPostgresStore(options: PgStoreOptions): Promise<OpenedPgStore> {
  const { connection, logger } = options;
  const pool = openPgPool(connection);
  pool.on('error', (error) => logger.warn({ err: error }, 'an idle PostgreSQL connection failed; the pool opens another when it is needed'));
  try {
    await migratePg(pool, connection.schema, PG_MIGRATIONS);
    const instanceId = options.ids.newId();
    await registerInstance(pool, instanceId, options.shards);
    let closed = false;
    return {
      instanceId,
      ...pgPortsOn(pool, { ...options, instanceId }),
      async close() {
        if (closed) return;
        closed = true;
        try {
          await stopInstance(pool, instanceId);
        } catch (error) {
          logger.warn({ err: error }, 'the store could not record this process stopping');
        } finally {
          await pool.end();
        }
      },
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/** How operators see where the shared store is: schema, host and database, never the password. */
export function describePgStore(connection: Pick<PgConnection, 'url' | 'schema'>): string {
  const url = URL.canParse(connection.url) ? new URL(connection.url) : undefined;
  const where = url === undefined ? 'the configured database' : `${url.host}${url.pathname}`;
  return `PostgreSQL schema ${connection.schema} at ${where}`;
}

/**
 * Opens the shared store for an operator's command, beside the running bot processes: it
 * registers no process, sweeps nothing and leaves the inbox alone. A schema the bot never created
 * is missing (and is not created); one at an older version is brought up to date as a starting
 * bot would, under the same advisory lock.
 */
export async function openPgForOperator(connection: PgConnection, options: Omit<PgPortsOptions, 'instanceId'>): Promise<StoreAccess> {
  const path = describePgStore(connection);
  const pool = openPgPool(connection);
  pool.on('error', (error) => options.logger.warn({ err: error }, 'an idle PostgreSQL connection failed'));
  try {
    const { rows } = await pool.query<{ found: string | null }>('SELECT to_regclass($1)::TEXT AS found', [`${connection.schema}.schema_version`]);
    if (rows[0]?.found === null) {
      await pool.end();
      return { kind: 'missing', path };
    }
    await migratePg(pool, connection.schema, PG_MIGRATIONS);
  } catch (error) {
    await pool.end();
    return { kind: 'unusable', path, cause: causeOf(error) };
  }
  // An operator's command is no bot process: it registers none, and its probe of the registry changes nothing.
  return { kind: 'opened', path, operator: pgPortsOn(pool, { ...options, instanceId: 'operator' }).operator, close: () => pool.end() };
}
