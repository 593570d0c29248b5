import type { Clock } from '../../core/clock.js';
import type { IdFactory } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import type { OpenedStore } from '../opened_store.js';
import type { TurnStoreTimings } from '../store_options.js';
import { PgHistoryStore } from './pg_history_store.js';
import { registerInstance, stopInstance } from './pg_instances.js';
import { PgMemoryStore } from './pg_memory_store.js';
import { migratePg } from './pg_migrate.js';
import { pgOperatorStoreOn } from './pg_operator_store.js';
import { openPgPool, type PgConnection } from './pg_pool.js';
import { PG_MIGRATIONS } from './pg_schema.js';
import { pgTurnStoreOn } from './pg_turn_store.js';

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
    const ports = { clock: options.clock, logger };
    let closed = false;
    return {
      instanceId,
      turns: pgTurnStoreOn(pool, { ...options, instanceId }),
      operator: pgOperatorStoreOn(pool, ports),
      history: new PgHistoryStore(pool, ports),
      memory: new PgMemoryStore(pool, ports),
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
