import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { BlobStore } from '../../turn_state/blob_store.js';
import { migratePg, PG_MIGRATIONS } from '../../turn_state/postgres/pg_migrations.js';
import { inTransaction } from '../../turn_state/postgres/pg_runner.js';
import { openPgPool, type PgConnection } from '../../turn_state/postgres/pg_pool.js';
import { copySqliteToPg, isCopyMismatchError, isTargetNotEmptyError, type TableCount } from '../../turn_state/postgres/sqlite_to_pg_copy.js';
import { causeOf } from '../../turn_state/errors.js';
import { blobDirectoryFor, openTurnDatabaseReadOnly } from '../../turn_state/sqlite/file.js';
import { isStoreInUseError, lockStoreFile } from '../../turn_state/sqlite/store_lock.js';
import type { Config } from '../config_schema.js';
import { EXIT, type ExitStatus } from '../exit_status.js';

/** What `holdfast migrate --to postgres` works with. */
export interface MigrateRequest {
  readonly config: Config;
  readonly cwd: string;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Removes the configured secrets from a message. */
  readonly redact: (text: string) => string;
  readonly out: (text: string) => void;
  /** One line each, prefixed `holdfast: `. */
  readonly err: (text: string) => void;
}

/** Connections the copy needs: the migration's and the copy's. */
const POOL_SIZE = 2;

/**
 * `holdfast migrate --to postgres`: copies the stopped installation's SQLite store (its file at
 * `turn_state.db_path`, read-only, and its blobs) into the empty PostgreSQL schema at
 * `turn_state.postgres`, brought to this program's schema first, in one transaction, then prints
 * each table's count, which it checked against the file's. Refused (status 3) while a bot holds
 * the file, or when the target holds a row; status 2 for a configuration without
 * `turn_state.postgres` or without a store file; 1 when the copy fails, which leaves no row.
 */
export async function migrateToPostgres(request: MigrateRequest): Promise<ExitStatus> {
  const postgres = request.config.turn_state.postgres;
  if (postgres === undefined) {
    request.err('holdfast: migrate --to postgres needs turn_state.postgres in the configuration: the url (and schema) of the database to copy into\n');
    return EXIT.usage;
  }
  const dbPath = resolve(request.cwd, request.config.turn_state.db_path);
  if (!existsSync(dbPath)) {
    request.err(`holdfast: the store ${dbPath} does not exist: there is nothing to copy (is this the bot's configuration and working directory?)\n`);
    return EXIT.usage;
  }
  let lock;
  try {
    lock = lockStoreFile(dbPath, request.clock.now());
  } catch (error) {
    if (!isStoreInUseError(error)) throw error;
    const who = error.holder === undefined ? 'a bot process' : `the bot process ${error.holder.pid} on host ${error.holder.host}, since ${error.holder.startedAt}`;
    request.err(`holdfast: the store ${dbPath} is in use by ${who}; stop it first: only a stopped installation is copied\n`);
    return EXIT.refused;
  }
  try {
    return await copyStopped(request, dbPath, { url: postgres.url, poolSize: POOL_SIZE, schema: postgres.schema });
  } finally {
    lock.release();
  }
}

async function copyStopped(request: MigrateRequest, dbPath: string, target: PgConnection): Promise<ExitStatus> {
  let opened;
  try {
    opened = openTurnDatabaseReadOnly(dbPath);
  } catch (error) {
    request.err(`holdfast: the store ${dbPath} cannot be read: ${causeOf(error)}\n`);
    return EXIT.failure;
  }
  if (opened.kind === 'other_version') {
    const advice = opened.version < opened.expected ? 'start the bot of this version on it once, stop it, then migrate' : 'migrate with the version of the program that wrote it';
    request.err(`holdfast: the store ${dbPath} is at schema version ${opened.version}, not this program's ${opened.expected}: ${advice}\n`);
    return EXIT.refused;
  }
  try {
    return await copyInto(request, opened.db, dbPath, target);
  } finally {
    opened.db.close();
  }
}

async function copyInto(request: MigrateRequest, source: Database, dbPath: string, target: PgConnection): Promise<ExitStatus> {
  const blobDir = blobDirectoryFor(dbPath);
  const blobs = existsSync(blobDir) ? BlobStore.open(blobDir) : undefined;
  const pool = openPgPool(target);
  let counts: TableCount[];
  try {
    await migratePg(pool, target.schema, PG_MIGRATIONS);
    counts = await inTransaction(pool, (db) => copySqliteToPg(source, blobs, db));
  } catch (error) {
    if (isTargetNotEmptyError(error)) {
      request.err(`holdfast: the PostgreSQL schema ${target.schema} is not empty: ${error.message}; migrate copies into an empty one only\n`);
      return EXIT.refused;
    }
    const cause = isCopyMismatchError(error) ? error.message : causeOf(error);
    request.err(`holdfast: the store could not be copied into the PostgreSQL schema ${target.schema}, which holds none of it: ${request.redact(cause)}\n`);
    return EXIT.failure;
  } finally {
    await pool.end();
  }
  const width = Math.max(...counts.map((entry) => entry.table.length));
  for (const entry of counts) request.out(`${entry.table.padEnd(width)}  ${entry.count}\n`);
  request.out(`Copied ${dbPath} into the PostgreSQL schema ${target.schema}; every count matches the SQLite store. Set turn_state.backend to postgres to run the bot on it.\n`);
  return EXIT.ok;
}
