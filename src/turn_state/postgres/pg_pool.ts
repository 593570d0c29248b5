import pg from 'pg';

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
