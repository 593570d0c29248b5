import { resolve } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { IdFactory } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import type { OpenedStore } from '../turn_state/opened_store.js';
import { openPostgresStore } from '../turn_state/postgres/open_pg_store.js';
import { causeOf } from '../turn_state/errors.js';
import { memoryOnlyStore, openSqliteStore } from '../turn_state/sqlite/open_store.js';
import { isStoreInUseError, lockStoreFile, type StoreLock } from '../turn_state/sqlite/store_lock.js';
import { turnStoreTimings } from '../turn_state/store_options.js';
import type { TurnStateSettings } from '../turn_state/turn_state_settings.js';

/** The store a bot process opened, and what it holds while it runs (the SQLite file's lock). */
export interface ChosenStore {
  readonly opened: OpenedStore;
  /** Closes the store and lets go of the file; once. */
  close(): Promise<void>;
}

/** What opening the store needs beside its settings. */
export interface StoreChoiceDeps {
  readonly cwd: string;
  readonly clock: Clock;
  readonly ids: IdFactory;
  readonly logger: Logger;
  /** The Discord shards this process serves, for the PostgreSQL registry; `null` when none. */
  readonly shards: string | null;
}

/**
 * Opens the store `turn_state.backend` names for a bot process (DESIGN §7.7): the SQLite file,
 * taken for this process first so that a second bot process is refused; or the PostgreSQL
 * database, shared with the other processes of the bot. When it cannot open, the bot still
 * answers without durability, keeping history and notes in memory — said loudly.
 * @throws {StoreInUseError} when another bot process holds the SQLite file.
 */
export async function openChosenStore(settings: TurnStateSettings, deps: StoreChoiceDeps): Promise<ChosenStore> {
  const logger = deps.logger.child({ component: 'turn_state' });
  const timings = turnStoreTimings(settings);
  if (settings.backend === 'postgres' && settings.postgres !== undefined && settings.enabled) {
    const { url, pool_size: poolSize, schema } = settings.postgres;
    try {
      const opened = await openPostgresStore({ connection: { url, poolSize, schema }, clock: deps.clock, ids: deps.ids, logger, shards: deps.shards, ...timings });
      logger.info({ schema, instance: opened.instanceId }, 'the store is the PostgreSQL database, shared with the other processes of this bot');
      return { opened, close: () => opened.close() };
    } catch (error) {
      logger.error({ schema, cause: causeOf(error) }, 'the PostgreSQL store could not open: turns are NOT durable, and history and memory notes are lost at restart, until this is fixed');
      const opened = memoryOnlyStore({ clock: deps.clock, logger });
      return { opened, close: () => opened.close() };
    }
  }
  const dbPath = resolve(deps.cwd, settings.db_path);
  const lock = settings.enabled ? lockStore(dbPath, deps.clock, logger) : undefined;
  const opened = openSqliteStore({ enabled: settings.enabled, dbPath, baseDir: deps.cwd, clock: deps.clock, ids: deps.ids, logger, ...timings });
  return {
    opened,
    async close() {
      await opened.close();
      lock?.release();
    },
  };
}

/**
 * Takes the store file for this process before anything reads or sweeps it. A file another bot
 * process holds stops the start; a lock that cannot be made is said loudly, and the store opener
 * then finds the file as unusable as the lock found it.
 * @throws {StoreInUseError} when another bot process holds the file.
 */
function lockStore(dbPath: string, clock: Clock, logger: Logger): StoreLock | undefined {
  try {
    return lockStoreFile(dbPath, clock.now());
  } catch (error) {
    if (isStoreInUseError(error)) throw error;
    logger.error({ err: error, dbPath }, 'the store file could not be locked: a second bot process on it would not be refused');
    return undefined;
  }
}
