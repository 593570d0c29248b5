import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { PgConnection } from '../../src/turn_state/postgres/pg_pool.js';
import type { ManualClock } from './manual_clock.js';

let schemas = 0;

/**
 * A connection to a schema of its own on the suites' PostgreSQL server, so that tests running
 * side by side never see each other's rows. The store creates the schema when it first opens it.
 */
export function freshPgConnection(poolSize = 4): PgConnection {
  schemas += 1;
  return { url: inject('postgresUrl'), poolSize, schema: `t_${process.pid}_${schemas}_${randomBytes(3).toString('hex')}` };
}

/** One statement on `connection`'s schema, on a connection of its own. */
export async function onSchema<R extends pg.QueryResultRow>(connection: PgConnection, text: string, values: readonly unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: connection.url, options: `-c search_path=${connection.schema}` });
  await client.connect();
  try {
    return (await client.query<R>(text, [...values])).rows;
  } finally {
    await client.end();
  }
}

/** The database's clock of one schema, following a manual clock. */
export interface FollowedClock {
  /** Copies the manual clock's time into the database; awaited before each store call. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Makes the database's clock (`now_ms()`, by which the store judges every lease) of an opened
 * store's schema read `clock` instead, as of each {@link FollowedClock.sync}.
 */
export async function databaseFollows(connection: PgConnection, clock: ManualClock): Promise<FollowedClock> {
  await onSchema(
    connection,
    `CREATE TABLE manual_time (now_ms BIGINT NOT NULL);
     INSERT INTO manual_time VALUES (0);
     CREATE OR REPLACE FUNCTION now_ms() RETURNS BIGINT LANGUAGE sql VOLATILE AS $$ SELECT now_ms FROM manual_time $$;`,
  );
  const pool = new pg.Pool({ connectionString: connection.url, max: 1, options: `-c search_path=${connection.schema}` });
  let closed = false;
  const followed: FollowedClock = {
    async sync() {
      if (!closed) await pool.query('UPDATE manual_time SET now_ms = $1', [clock.now()]);
    },
    async close() {
      closed = true;
      await pool.end();
    },
  };
  await followed.sync();
  return followed;
}

/**
 * `target` with each of its methods first awaiting `before`: a store whose every call sees the
 * database's clock where the test's manual clock is.
 */
export function callsAfter<T extends object>(target: T, before: () => Promise<void>): T {
  return new Proxy(target, {
    get: (object, name) => {
      const value: unknown = Reflect.get(object, name);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      return async (...args: unknown[]) => {
        await before();
        return method.apply(object, args);
      };
    },
  });
}
