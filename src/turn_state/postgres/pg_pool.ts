import pg from 'pg';
import { isNetworkFailure } from '../../core/start_retries.js';

/** How to reach the shared database: the `turn_state.postgres` section in the store's terms. */
export interface PgConnection {
  readonly url: string;
  readonly poolSize: number;
  /** The schema every unqualified table name of the store resolves in. */
  readonly schema: string;
}

/** A connection a statement can run on: the pool, or one client inside a transaction. */
export type PgQueryable = Pick<pg.PoolClient, 'query'>;

/** Every count and epoch-milliseconds value the store keeps fits a double exactly (< 2^53). */
function storeTypes(): pg.TypeOverrides {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, Number);
  return types;
}

/**
 * A pool of at most `poolSize` connections whose sessions resolve table names in `schema` (set
 * in the startup packet, so no statement can run before it) and read BIGINT as a number.
 */
export function openPgPool(connection: PgConnection): pg.Pool {
  return new pg.Pool({
    connectionString: connection.url,
    max: connection.poolSize,
    options: `-c search_path=${connection.schema}`,
    types: storeTypes(),
  });
}

/**
 * Whether a failure to open the store says the database could not be reached yet, which waiting
 * may cure: a network failure, or a server that takes no connection now (starting up or shutting
 * down, SQLSTATE 57P03) or has none left (53300).
 */
export function isPgUnreachable(error: unknown): boolean {
  const code = sqlStateOf(error);
  return isNetworkFailure(error) || code === '57P03' || code === '53300';
}

/**
 * The SQLSTATE of a refusal of what `turn_state.postgres.url` says, which a person must fix: its
 * user or password (class 28) or its database (3D000); `undefined` for any other failure.
 */
export function pgRefusal(error: unknown): string | undefined {
  const code = sqlStateOf(error);
  return code !== undefined && (code.startsWith('28') || code === '3D000') ? code : undefined;
}

function sqlStateOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
