import pg from 'pg';
import { pino } from 'pino';
import { RandomIds } from '../../src/core/ids.js';
import { SystemClock } from '../../src/core/system_clock.js';
import { openPostgresStore } from '../../src/turn_state/postgres/open_pg_store.js';
import type { PgConnection } from '../../src/turn_state/postgres/pg_pool.js';
import { startEmbeddedPostgres, type StartedPostgres } from '../../test/support/embedded_postgres.js';
import { StoreWorkload, type BackendFigures } from './store_workload.js';

/** `work` on a connection of its own to the bench's schema. */
async function withClient<T>(connection: PgConnection, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: connection.url, options: `-c search_path=${connection.schema}` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The one row a query answers. */
function queryOne<R extends pg.QueryResultRow>(connection: PgConnection, text: string, values: unknown[] = []): Promise<R> {
  return withClient(connection, async (client) => {
    const row = (await client.query<R>(text, values)).rows[0];
    if (row === undefined) throw new Error(`no row from ${text}`);
    return row;
  });
}

/** WAL the server has written so far, in bytes: what PostgreSQL makes durable for every commit. */
async function walPosition(connection: PgConnection): Promise<number> {
  return Number((await queryOne<{ lsn: string }>(connection, `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::TEXT AS lsn`)).lsn);
}

/**
 * The workload on PostgreSQL with its default durability (`synchronous_commit = on`, fsync at
 * every commit): the server `HOLDFAST_BENCH_POSTGRES_URL` names, or one started from the
 * `embedded-postgres` package for the run, on this machine; `concurrency` turns at once as well, when given.
 */
export async function benchPostgres(concurrency: number | undefined): Promise<BackendFigures> {
  const given = process.env['HOLDFAST_BENCH_POSTGRES_URL'];
  const started: StartedPostgres | undefined = given === undefined || given === '' ? await startEmbeddedPostgres({ durable: true }) : undefined;
  const connection: PgConnection = { url: started?.url ?? given ?? '', poolSize: 4, schema: `bench_${process.pid}` };
  const opened = await openPostgresStore({
    connection,
    clock: new SystemClock(),
    ids: new RandomIds(),
    logger: pino({ level: 'silent' }),
    shards: null,
    leaseTtlMs: 600_000,
    resumeTtlMs: 86_400_000,
    payloadRetentionMs: 7 * 86_400_000,
    ledgerRetentionMs: 90 * 86_400_000,
    usageRetentionMs: 400 * 86_400_000,
  });
  try {
    if (!opened.turns.durable) throw new Error('the store did not open');
    const workload = new StoreWorkload(opened.turns);
    const latencies = await workload.latencies();
    const throughput = concurrency === undefined ? undefined : await workload.concurrentTurns(Math.max(200, concurrency * 10), concurrency);
    const before = await walPosition(connection);
    const turnId = await workload.longTurn();
    const wal = (await walPosition(connection)) - before;
    const sizes = await queryOne<{ transcript: number; ledger: number }>(
      connection,
      `SELECT (SELECT SUM(octet_length(message)) FROM transcript WHERE turn_id = $1)::BIGINT AS transcript,
              (SELECT SUM(octet_length(input) + octet_length(result)) FROM ops WHERE turn_id = $1)::BIGINT AS ledger`,
      [turnId],
    );
    return {
      name: 'postgres',
      latencies,
      throughput,
      turn: {
        commitsPerStep: workload.commitsPerStep,
        transcript: Number(sizes.transcript),
        ledger: Number(sizes.ledger),
        written: [{ what: 'WAL generated', bytes: wal, means: 'row images, index entries and commit records; full pages after each checkpoint' }],
      },
    };
  } finally {
    await opened.close();
    await withClient(connection, (client) => client.query(`DROP SCHEMA ${connection.schema} CASCADE`));
    await started?.stop();
  }
}
