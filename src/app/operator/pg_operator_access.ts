import { causeOf } from '../../turn_state/errors.js';
import { RandomIds } from '../../core/ids.js';
import { pgPortsOn } from '../../turn_state/postgres/open_pg_store.js';
import { turnStoreTimings } from '../../turn_state/store_options.js';
import { migratePg, PG_MIGRATIONS } from '../../turn_state/postgres/pg_migrations.js';
import { openPgPool } from '../../turn_state/postgres/pg_pool.js';
import { redactingOperatorStore } from '../../turn_state/redacting_stores.js';
import type { TurnStateSettings } from '../../turn_state/turn_state_settings.js';
import type { OperatorStoreDeps, StoreAccess } from './operator_store_access.js';

type PostgresSettings = NonNullable<TurnStateSettings['postgres']>;

/** An operator's command is no bot process: it registers none and takes no lease. */
const OPERATOR = 'operator';

/** How operators see where the shared store is: schema, host and database, never the password. */
export function describePgStore(settings: PostgresSettings): string {
  const url = URL.canParse(settings.url) ? new URL(settings.url) : undefined;
  const where = url === undefined ? 'the configured database' : `${url.host}${url.pathname}`;
  return `PostgreSQL schema ${settings.schema} at ${where}`;
}

/**
 * Opens the shared PostgreSQL store for an operator command, beside the running bot processes: it
 * registers no process, sweeps nothing and leaves the inbox alone. A schema the bot never created
 * is missing (and is not created); one at an older version is brought up to date as a starting
 * bot would, under the same advisory lock.
 */
export async function openPgOperatorStore(turnState: TurnStateSettings, settings: PostgresSettings, deps: OperatorStoreDeps): Promise<StoreAccess> {
  const path = describePgStore(settings);
  const pool = openPgPool({ url: settings.url, poolSize: 2, schema: settings.schema });
  pool.on('error', (error) => deps.logger.warn({ err: error }, 'an idle PostgreSQL connection failed'));
  try {
    const { rows } = await pool.query<{ found: string | null }>(`SELECT to_regclass('${settings.schema}.schema_version')::TEXT AS found`);
    if (rows[0]?.found === null) {
      await pool.end();
      return { kind: 'missing', path };
    }
    await migratePg(pool, settings.schema, PG_MIGRATIONS);
  } catch (error) {
    await pool.end();
    return { kind: 'unusable', path, cause: deps.secrets.redact(causeOf(error)) };
  }
  return {
    kind: 'opened',
    path,
    operator: redactingOperatorStore(pgPortsOn(pool, { ...turnStoreTimings(turnState), clock: deps.clock, ids: new RandomIds(), logger: deps.logger, instanceId: OPERATOR }).operator, deps.secrets),
    close: () => pool.end(),
  };
}
