import { afterEach, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { migratePg, PG_MIGRATIONS } from '../../src/turn_state/postgres/pg_migrations.js';
import { openPgPool, type PgConnection } from '../../src/turn_state/postgres/pg_pool.js';
import { freshPgConnection, onSchema } from '../support/postgres_schema.js';

describe('the PostgreSQL schema', () => {
  const pools: pg.Pool[] = [];
  const poolOn = (connection: PgConnection): pg.Pool => {
    const pool = openPgPool(connection);
    pools.push(pool);
    return pool;
  };
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.end()));
  });

  it('is created once by processes that start together, each step under the advisory lock', async () => {
    const connection = freshPgConnection();
    await Promise.all([1, 2, 3].map(() => migratePg(poolOn(connection), connection.schema, PG_MIGRATIONS)));

    expect(await onSchema(connection, 'SELECT version FROM schema_version')).toEqual([{ version: PG_MIGRATIONS.length }]);
    const tables = await onSchema<{ table_name: string }>(connection, 'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name', [connection.schema]);
    expect(tables.map((row) => row.table_name)).toEqual([
      'approval_rules',
      'blob_refs',
      'blobs',
      'channel_models',
      'checkpoints',
      'history_blob_refs',
      'history_channels',
      'history_entries',
      'inbox',
      'instances',
      'memory_notes',
      'op_moves',
      'ops',
      'replies',
      'schema_version',
      'transcript',
      'turns',
      'usage_calls',
      'usage_days',
      'usage_turns',
    ]);
  });

  it('refuses a schema a newer program wrote, naming both versions, and leaves it as it was', async () => {
    const connection = freshPgConnection();
    await migratePg(poolOn(connection), connection.schema, PG_MIGRATIONS);
    await onSchema(connection, 'UPDATE schema_version SET version = $1', [PG_MIGRATIONS.length + 1]);

    await expect(migratePg(poolOn(connection), connection.schema, PG_MIGRATIONS)).rejects.toThrow(
      `the PostgreSQL store (schema ${connection.schema}) is at version ${PG_MIGRATIONS.length + 1}, newer than this program's ${PG_MIGRATIONS.length}`,
    );
    expect(await onSchema(connection, 'SELECT version FROM schema_version')).toEqual([{ version: PG_MIGRATIONS.length + 1 }]);
  });

  it('rolls a failing step back whole, so a later start runs it again', async () => {
    const connection = freshPgConnection();
    const broken = [...PG_MIGRATIONS, 'CREATE TABLE half_made (id INTEGER); SELECT no_such_function();'];
    await expect(migratePg(poolOn(connection), connection.schema, broken)).rejects.toThrow(/no_such_function/);

    expect(await onSchema(connection, 'SELECT version FROM schema_version')).toEqual([{ version: PG_MIGRATIONS.length }]);
    expect(await onSchema(connection, `SELECT to_regclass('half_made') AS half_made`)).toEqual([{ half_made: null }]);
  });

  it('reads the database clock as epoch milliseconds', async () => {
    const connection = freshPgConnection();
    const pool = poolOn(connection);
    await migratePg(pool, connection.schema, PG_MIGRATIONS);
    const before = Date.now();
    const { rows } = await pool.query<{ now: number }>('SELECT now_ms() AS now');
    expect(typeof rows[0]?.now).toBe('number');
    expect(Math.abs((rows[0]?.now ?? 0) - before)).toBeLessThan(60_000);
  });
});
