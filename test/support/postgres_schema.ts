import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { migratePg, PG_MIGRATIONS } from '../../src/turn_state/postgres/pg_migrations.js';
import { openPgPool, type PgConnection } from '../../src/turn_state/postgres/pg_pool.js';
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
  /** Stops following (a later `sync` does nothing), ending the connection it syncs on if that is its own. */
  close(): Promise<void>;
}

/** Makes `now_ms()`, by which the store judges every lease, read the time kept in `manual_time`. */
const MANUAL_TIME = `CREATE TABLE manual_time (now_ms BIGINT NOT NULL);
  INSERT INTO manual_time VALUES (0);
  CREATE OR REPLACE FUNCTION now_ms() RETURNS BIGINT LANGUAGE sql VOLATILE AS $$ SELECT now_ms FROM manual_time $$;`;

/** `clock` copied into the `manual_time` of `pool`'s schema, now and at each sync until closed; `release` runs on close. */
async function followOn(pool: pg.Pool, clock: ManualClock, release?: () => Promise<void>): Promise<FollowedClock> {
  let closed = false;
  const followed: FollowedClock = {
    async sync() {
      if (!closed) await pool.query('UPDATE manual_time SET now_ms = $1', [clock.now()]);
    },
    async close() {
      closed = true;
      await release?.();
    },
  };
  await followed.sync();
  return followed;
}

/**
 * Makes the database's clock (`now_ms()`, by which the store judges every lease) of an opened
 * store's schema read `clock` instead, as of each {@link FollowedClock.sync}.
 */
export async function databaseFollows(connection: PgConnection, clock: ManualClock): Promise<FollowedClock> {
  await onSchema(connection, MANUAL_TIME);
  const pool = new pg.Pool({ connectionString: connection.url, max: 1, options: `-c search_path=${connection.schema}` });
  return followOn(pool, clock, () => pool.end());
}

/** One test's turn on its file's migrated schema. */
export interface MigratedPgSchema {
  readonly connection: PgConnection;
  /**
   * The file's pool of `connection.poolSize` connections on the schema, for the test's store. The
   * test leaves it open and idle for the file's next test, or ends it when it restarts the store, as
   * a restarting process would: the next test then gets a new one.
   */
  readonly pool: pg.Pool;
  /** The file's connection beside the store's, for reading what the store wrote. */
  readonly reader: pg.Pool;
  /** The database's clock, following the test's manual clock until closed. */
  readonly followed: FollowedClock;
}

/**
 * The tables the migrations made in `pool`'s schema, each after every table whose foreign keys
 * refer to it, so that deleting their rows in this order never breaks a reference.
 */
async function tablesReferrersFirst(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ name: string; referrers: string[] }>(
    `SELECT quote_ident(t.relname) AS name,
            ARRAY(SELECT quote_ident(r.relname) FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid
                  WHERE c.contype = 'f' AND c.confrelid = t.oid AND c.conrelid <> t.oid) AS referrers
       FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = current_schema() AND t.relkind = 'r' AND t.relname <> 'schema_version'`,
  );
  const ordered: string[] = [];
  let left = rows;
  while (left.length > 0) {
    const ready = left.filter((table) => table.referrers.every((referrer) => ordered.includes(referrer)));
    if (ready.length === 0) throw new Error(`the foreign keys among ${left.map((table) => table.name).join(', ')} form a cycle`);
    ordered.push(...ready.map((table) => table.name));
    left = left.filter((table) => !ready.includes(table));
  }
  return ordered;
}

/**
 * One schema for the tests of the calling file, migrated to the newest of {@link PG_MIGRATIONS}
 * with its database clock made manual (see {@link databaseFollows}) on first use. Each call, one
 * per test (a file's tests run one after another), empties every table the migrations made and
 * restarts their identity counters, keeping `schema_version` and the clock: the test starts as on
 * a freshly migrated schema, its database clock following `clock`.
 * @throws when a store call of the file's previous test is still running on the file's pool.
 */
export function useMigratedPgSchema(): (clock: ManualClock) => Promise<MigratedPgSchema> {
  let shared: { readonly connection: PgConnection; pool: pg.Pool; readonly side: pg.Pool; readonly emptying: Promise<string> } | undefined;
  afterAll(async () => {
    if (shared?.pool.ending === false) await shared.pool.end();
    await shared?.side.end();
  });
  const prepare = async (connection: PgConnection, side: pg.Pool): Promise<string> => {
    await migratePg(side, connection.schema, PG_MIGRATIONS);
    const tables = await tablesReferrersFirst(side);
    await side.query(MANUAL_TIME);
    // DELETE and setval, not TRUNCATE: emptying a few rows costs ~1 ms, where TRUNCATE makes new files for every table and index (~25 ms).
    return [
      ...tables.map((table) => `DELETE FROM ${table};`),
      `SELECT setval(format('%I.%I', schemaname, sequencename)::regclass, start_value, false) FROM pg_sequences WHERE schemaname = current_schema();`,
    ].join('\n');
  };
  return async (clock) => {
    if (shared === undefined) {
      const connection = freshPgConnection();
      const side = openPgPool({ ...connection, poolSize: 1 });
      // Opening a connection costs tens of milliseconds on the test machines, more than most tests: the store's pool is the file's, not each test's.
      shared = { connection, pool: openPgPool(connection), side, emptying: prepare(connection, side) };
    }
    if (shared.pool.ending) shared.pool = openPgPool(shared.connection);
    const { connection, pool, side, emptying } = shared;
    if (pool.idleCount !== pool.totalCount || pool.waitingCount > 0) throw new Error("a store call of the file's previous test is still running");
    await side.query(await emptying);
    return { connection, pool, reader: side, followed: await followOn(side, clock) };
  };
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

/** URLs of the test server that it refuses, each with the SQLSTATE it answers: a wrong password (28P01), a database it does not have (3D000). */
export function refusedPgUrls(): readonly (readonly [URL, string])[] {
  const server = new URL(inject('postgresUrl'));
  const wrongPassword = new URL(server.href);
  wrongPassword.password = 'not-the-password';
  const noDatabase = new URL(server.href);
  noDatabase.pathname = '/no_such_database';
  return [
    [wrongPassword, '28P01'],
    [noDatabase, '3D000'],
  ];
}
