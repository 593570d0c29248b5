import { resolve } from 'node:path';
import { assertNever } from '../../core/assert_never.js';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { copyStoreToPostgres } from '../../turn_state/store_migration.js';
import type { Config } from '../config_schema.js';
import { EXIT, type ExitStatus } from '../exit_status.js';
/** What `holdfast migrate --to postgres` works with. */
export interface MigrateRequest {
  readonly config: Config;
  /** The folder `turn_state.db_path` is relative to: the configuration file's. */
  readonly baseDir: string;
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
  const dbPath = resolve(request.baseDir, request.config.turn_state.db_path);
  const { schema } = postgres;
  const migration = await copyStoreToPostgres(dbPath, { url: postgres.url, poolSize: POOL_SIZE, schema }, request.clock.now());
  switch (migration.kind) {
    case 'missing':
      request.err(`holdfast: the store ${dbPath} does not exist: there is nothing to copy (is this the bot's configuration?)\n`);
      return EXIT.usage;
    case 'in_use': {
      const { holder } = migration;
      const who = holder === undefined ? 'a bot process' : `the bot process ${holder.pid} on host ${holder.host}, since ${holder.startedAt}`;
      request.err(`holdfast: the store ${dbPath} is in use by ${who}; stop it first: only a stopped installation is copied\n`);
      return EXIT.refused;
    }
    case 'unreadable':
      request.err(`holdfast: the store ${dbPath} cannot be read: ${migration.cause}\n`);
      return EXIT.failure;
    case 'other_version': {
      const advice = migration.version < migration.expected ? 'start the bot of this version on it once, stop it, then migrate' : 'migrate with the version of the program that wrote it';
      request.err(`holdfast: the store ${dbPath} is at schema version ${migration.version}, not this program's ${migration.expected}: ${advice}\n`);
      return EXIT.refused;
    }
    case 'not_empty':
      request.err(`holdfast: the PostgreSQL schema ${schema} is not empty: ${migration.detail}; migrate copies into an empty one only\n`);
      return EXIT.refused;
    case 'failed':
      request.err(`holdfast: the store could not be copied into the PostgreSQL schema ${schema}, which holds none of it: ${request.redact(migration.cause)}\n`);
      return EXIT.failure;
    case 'copied': {
      const { counts } = migration;
      const width = Math.max(...counts.map((entry) => entry.table.length));
      for (const entry of counts) request.out(`${entry.table.padEnd(width)}  ${entry.count}\n`);
      request.out(`Copied ${dbPath} into the PostgreSQL schema ${schema}; every count matches the SQLite store. Set turn_state.backend to postgres to run the bot on it.\n`);
      return EXIT.ok;
    }
    default:
      return assertNever(migration);
  }
}
