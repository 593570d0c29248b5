import type pg from 'pg';
import { SCHEMA_NAME } from '../turn_state_settings.js';

/** The advisory lock every process takes around the migrations of one schema. */
const lockKey = (schema: string): string => `holdfast:${schema}`;

/**
 * Brings `schema` to the newest of `migrations`, creating it if missing: each version in its own
 * transaction, all under a session advisory lock, so that processes starting together run each
 * step once and the others wait and find it done. The version is kept in `schema_version`.
 * @throws when the schema was written by a newer version of this program, or a step fails
 *   (that step is rolled back; earlier ones stay).
 */
export async function migratePg(pool: pg.Pool, schema: string, migrations: readonly string[]): Promise<void> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`"${schema}" is not a schema name the store can use`);
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey(schema)]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
      const current = await versionOf(client);
      if (current > migrations.length) throw new Error(`the PostgreSQL store (schema ${schema}) is at version ${current}, newer than this program's ${migrations.length}`);
      for (let version = current + 1; version <= migrations.length; version += 1) {
        await client.query('BEGIN');
        try {
          await client.query(migrations[version - 1] ?? '');
          await client.query('DELETE FROM schema_version');
          await client.query('INSERT INTO schema_version (version) VALUES ($1)', [version]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey(schema)]);
    }
  } finally {
    client.release();
  }
}

async function versionOf(client: pg.PoolClient): Promise<number> {
  const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_version');
  return rows[0]?.version ?? 0;
}
