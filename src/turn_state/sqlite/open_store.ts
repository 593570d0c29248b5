import { hostname } from 'node:os';
import type { Database } from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import type { IdFactory } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import { BlobStore } from '../blob_store.js';
import { durableStore, keptStores } from '../operations/durable_store.js';
import { NO_OPERATOR_STORE, noTurnStore } from '../no_store.js';
import type { OpenedStore } from '../opened_store.js';
import type { TurnStoreTimings } from '../store_options.js';
import { causeOf } from '../errors.js';
import { blobDirectoryFor, openInMemoryTurnDatabase, openTurnDatabase } from './file.js';
import { importPreviousLayout } from './previous_layout.js';
import { SqliteRunner } from './sqlite_runner.js';

/** How to open the store file. */
export interface SqliteStoreOptions extends TurnStoreTimings {
  readonly dbPath: string;
  readonly clock: Clock;
  readonly ids: IdFactory;
  readonly logger: Logger;
  /** `turn_state.enabled`: `false` keeps nothing on disk. */
  readonly enabled: boolean;
  /** The directory the previous layout's files are looked for under: the one the bot resolves paths against. */
  readonly baseDir: string;
}

/**
 * Every port of the store on the open connection `db`, its blobs beside the file: one runner, so
 * that every write of the process shares one group commit; closing closes the connection. This
 * process holds the file alone (DESIGN §7.7), so at its start every ACTIVE turn has no live owner.
 */
export function portsOnFile(db: Database, options: Omit<SqliteStoreOptions, 'enabled' | 'baseDir'>): OpenedStore {
  const runner = new SqliteRunner(db, BlobStore.open(blobDirectoryFor(options.dbPath)), options.clock);
  const ports = durableStore(runner, { ...options, instanceId: `${hostname()}:${process.pid}`, ownerlessAtStart: { kind: 'all' } });
  return { ...ports, close: () => runner.close() };
}

/** The file's database with every port on it, the previous layout imported; throws when it cannot open. */
function openFileStore(options: SqliteStoreOptions): OpenedStore {
  const db = openTurnDatabase(options.dbPath);
  try {
    importPreviousLayout(db, options.baseDir, options.clock.now(), options.logger);
    return portsOnFile(db, options);
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Opens the store file once and returns every port on it; never throws. The first open of a file
 * imports the previous layout's separate history and memory files. When the store is off
 * (`enabled: false`) or its file cannot open, the bot still answers: turns are not durable, and
 * history and memory notes are kept in an in-memory database until the bot stops — said loudly.
 */
export function openSqliteStore(options: SqliteStoreOptions): OpenedStore {
  if (options.enabled) {
    try {
      return openFileStore(options);
    } catch (error) {
      options.logger.error({ file: options.dbPath, cause: causeOf(error) }, 'the store could not open: turns are NOT durable, and history and memory notes are lost at restart, until this is fixed');
    }
  } else {
    options.logger.warn('turn_state.enabled is false: turns are not durable (an interrupted reply is lost), and history and memory notes last only until the bot stops');
  }
  return memoryOnlyStore(options);
}

/**
 * The fallback when no durable store opens, whichever backend was asked for: no turn store, and
 * history and memory notes in an in-memory database until the bot stops — said in the log. In
 * memory, attachments stay inline: nothing goes to disk.
 */
export function memoryOnlyStore(options: { readonly clock: Clock; readonly logger: Logger }): OpenedStore {
  options.logger.warn('conversation history and memory notes are kept in memory only');
  const runner = new SqliteRunner(openInMemoryTurnDatabase(), undefined, options.clock);
  return { turns: noTurnStore(), operator: NO_OPERATOR_STORE, ...keptStores(runner), close: () => runner.close() };
}
