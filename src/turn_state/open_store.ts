import { resolve } from 'node:path';
import { assertNever } from '../core/assert_never.js';
import type { Clock } from '../core/clock.js';
import type { IdFactory } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import type { Redactor } from '../core/secret_values.js';
import { isUnreachableAtStart, reachAtStart, type StartupRetry } from '../core/start_retries.js';
import { causeOf, isStoreInUseError, StoreRefusedError } from './errors.js';
import type { OpenedStore, StoreAccess } from './opened_store.js';
import { redactingOperatorStore } from './redacting_stores.js';
import { openFileForOperator } from './sqlite/operator_file.js';
import { lockStoreFile, type StoreLock } from './sqlite/store_lock.js';
import { turnStoreTimings } from './store_options.js';
import type { TurnStateSettings } from './turn_state_settings.js';

/** What opening the store needs beside its settings. */
interface StoreDeps {
  /** The directory `turn_state.db_path` is relative to: the configuration file's folder. */
  readonly cwd: string;
  readonly clock: Clock;
  readonly ids: IdFactory;
  readonly logger: Logger;
}

/** A bot process: it holds a SQLite file alone, or registers in the PostgreSQL store as one of its processes. */
export interface BotStoreDeps extends StoreDeps {
  readonly mode: 'bot';
  /** The Discord shards this process serves, for the PostgreSQL registry; `null` when none. */
  readonly shards: string | null;
  /** How a PostgreSQL database that cannot be reached yet is tried again (`startup_timeout_seconds`). */
  readonly startup: StartupRetry;
}

/** An operator's command, beside the running bot: no lock, no registration, no sweep. */
export interface OperatorStoreDeps extends StoreDeps {
  readonly mode: 'operator';
  /** Kept out of the verdicts it records, as the bot keeps them out of everything it writes. */
  readonly secrets: Redactor;
}

/**
 * The one way to a store (DESIGN §7.7), whichever backend `turn_state.backend` names. For a bot
 * process: the SQLite file, taken for this process first so that a second bot process is refused,
 * or the PostgreSQL database, shared with the bot's other processes, tried again while it cannot
 * be reached; when it cannot open otherwise, the bot still answers without durability, keeping
 * history and notes in memory — said loudly. For an operator's command: the store as the command
 * finds it (see {@link StoreAccess}). Each loads only what it opens: the PostgreSQL driver only for
 * the PostgreSQL backend, an operator's command only the operators' port.
 * @throws {StoreInUseError} when another bot process holds the SQLite file.
 * @throws {StoreRefusedError} when the database server refuses the user, the password or the database.
 * @throws {UnreachableAtStartError} when the database could not be reached for `startup_timeout_seconds`.
 */
export function openStore(settings: TurnStateSettings, deps: BotStoreDeps): Promise<OpenedStore>;
export function openStore(settings: TurnStateSettings, deps: OperatorStoreDeps): Promise<StoreAccess>;
export function openStore(settings: TurnStateSettings, deps: BotStoreDeps | OperatorStoreDeps): Promise<OpenedStore | StoreAccess> {
  return deps.mode === 'bot' ? openForBot(settings, deps) : openForOperator(settings, deps);
}

async function openForBot(settings: TurnStateSettings, deps: BotStoreDeps): Promise<OpenedStore> {
  const logger = deps.logger.child({ component: 'turn_state' });
  const timings = turnStoreTimings(settings);
  // The bot's SQLite store, and the in-memory one any backend falls back to.
  const { memoryOnlyStore, openSqliteStore } = await import('./sqlite/open_store.js');
  if (settings.backend === 'postgres' && settings.postgres !== undefined && settings.enabled) {
    const { url, pool_size: poolSize, schema } = settings.postgres;
    const connection = { url, poolSize, schema };
    const { describePgStore, isPgUnreachable, openPostgresStore, pgRefusal } = await import('./postgres/open_pg_store.js');
    try {
      const opened = await reachAtStart(
        {
          what: describePgStore(connection),
          attempt: async (signal) => {
            const store = await openPostgresStore({ connection, clock: deps.clock, ids: deps.ids, logger, shards: deps.shards, ...timings });
            // Opened after the start gave up on it: nothing will use it.
            if (signal.aborted) await store.close();
            return store;
          },
          unreachable: isPgUnreachable,
        },
        deps.startup,
      );
      logger.info({ schema, instance: opened.instanceId }, 'the store is the PostgreSQL database, shared with the other processes of this bot');
      return opened;
    } catch (error) {
      if (isUnreachableAtStart(error) || deps.startup.signal.aborted) throw error;
      const refusal = pgRefusal(error);
      if (refusal !== undefined) throw new StoreRefusedError(describePgStore(connection), refusal, error);
      logger.error({ schema, cause: causeOf(error) }, 'the PostgreSQL store could not open: turns are NOT durable, and history and memory notes are lost at restart, until this is fixed');
      return memoryOnlyStore({ clock: deps.clock, logger });
    }
  }
  const dbPath = resolve(deps.cwd, settings.db_path);
  const lock = settings.enabled ? lockStore(dbPath, deps.clock, logger) : undefined;
  const opened = openSqliteStore({ enabled: settings.enabled, dbPath, baseDir: deps.cwd, clock: deps.clock, ids: deps.ids, logger, ...timings });
  return {
    ...opened,
    async close() {
      await opened.close();
      lock?.release();
    },
  };
}

async function openForOperator(settings: TurnStateSettings, deps: OperatorStoreDeps): Promise<StoreAccess> {
  if (!settings.enabled) return { kind: 'disabled' };
  const options = { clock: deps.clock, ids: deps.ids, logger: deps.logger, ...turnStoreTimings(settings) };
  const access =
    settings.backend === 'postgres' && settings.postgres !== undefined
      ? await (await import('./postgres/open_pg_store.js')).openPgForOperator({ url: settings.postgres.url, poolSize: 2, schema: settings.postgres.schema }, options)
      : openFileForOperator({ ...options, dbPath: resolve(deps.cwd, settings.db_path) });
  switch (access.kind) {
    case 'opened':
      return { ...access, operator: redactingOperatorStore(access.operator, deps.secrets) };
    case 'unusable':
      return { ...access, cause: deps.secrets.redact(access.cause) };
    case 'disabled':
    case 'missing':
      return access;
    default:
      return assertNever(access);
  }
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
