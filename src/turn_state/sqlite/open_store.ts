import type { Database } from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { BlobStore } from '../blob_store.js';
import type { TurnStore } from '../turn_store.js';
import { causeOf } from './file.js';
import { blobDirectoryFor, openInMemoryTurnDatabase, openTurnDatabase } from './open.js';
import { importPreviousLayout } from './previous_layout.js';
import { SqliteHistoryStore } from './sqlite_history_store.js';
import { SqliteMemoryStore } from './sqlite_memory_store.js';
import { sqliteOperatorStoreOn, sqliteTurnStoreOn, type SqliteTurnStoreOptions } from './sqlite_turn_store.js';
import type { OperatorStore } from '../operator_store.js';
import type { OpenedStore } from '../opened_store.js';

/** How to open the store. */
export interface SqliteStoreOptions extends SqliteTurnStoreOptions {
  /** `turn_state.enabled`: `false` keeps nothing on disk. */
  readonly enabled: boolean;
  /** The directory the previous layout's files are looked for under: the one the bot resolves paths against. */
  readonly baseDir: string;
}

function storeOn(db: Database, durable: { turns: TurnStore; operator: OperatorStore }, options: SqliteStoreOptions): OpenedStore {
  return {
    turns: durable.turns,
    operator: durable.operator,
    history: new SqliteHistoryStore(db, options.clock, BlobStore.open(blobDirectoryFor(options.dbPath))),
    memory: new SqliteMemoryStore(db, options.clock),
    // The turn store commits in groups: it closes the connection once the last group is on disk.
    close: () => durable.turns.close(),
  };
}

/** The file's database with every port on it, the previous layout imported; throws when it cannot open. */
function openFileStore(options: SqliteStoreOptions): OpenedStore {
  const db = openTurnDatabase(options.dbPath);
  try {
    importPreviousLayout(db, options.baseDir, options.clock.now(), options.logger);
    return storeOn(db, { turns: sqliteTurnStoreOn(db, options), operator: sqliteOperatorStoreOn(db, options) }, options);
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
 * history and memory notes in an in-memory database until the bot stops — said in the log.
 */
export function memoryOnlyStore(options: { readonly clock: Clock; readonly logger: Logger }): OpenedStore {
  options.logger.warn('conversation history and memory notes are kept in memory only');
  const db = openInMemoryTurnDatabase();
  return {
    turns: undefined,
    operator: undefined,
    // In memory, attachments stay inline: nothing goes to disk.
    history: new SqliteHistoryStore(db, options.clock, undefined),
    memory: new SqliteMemoryStore(db, options.clock),
    close() {
      if (db.open) db.close();
      return Promise.resolve();
    },
  };
}
