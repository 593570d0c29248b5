import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Clock } from '../../core/clock.js';
import { RandomIds } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import type { SecretValues } from '../../core/secret_values.js';
import type { OperatorStore } from '../../turn_state/operator_store.js';
import { redactingOperatorStore } from '../../turn_state/redacting_stores.js';
import { causeOf } from '../../turn_state/errors.js';
import { openTurnDatabase } from '../../turn_state/sqlite/file.js';
import { portsOnFile } from '../../turn_state/sqlite/open_store.js';
import { turnStoreTimings } from '../../turn_state/store_options.js';
import type { Config } from '../config_schema.js';
import { openPgOperatorStore } from './pg_operator_access.js';

/**
 * The store as an operator command finds it: switched off, not created yet, there but unusable
 * (damaged, or written by a newer version), or open.
 */
export type StoreAccess =
  | { readonly kind: 'disabled' }
  | { readonly kind: 'missing'; readonly path: string }
  | { readonly kind: 'unusable'; readonly path: string; readonly cause: string }
  | { readonly kind: 'opened'; readonly path: string; readonly operator: OperatorStore; close(): Promise<void> };

/** What opening the store for an operator command needs. */
export interface OperatorStoreDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly secrets: SecretValues;
}

/**
 * Opens the store file for an operator command, read-write beside a running bot (DESIGN §7.7):
 * it takes no lock, sweeps nothing, imports nothing and leaves the inbox alone; SQLite's WAL and
 * busy timeout let both write safely. A file that does not exist is not created. Verdict texts
 * are written with the configured `secrets` redacted, as the bot writes everything. On
 * PostgreSQL it opens the shared database the same way (see {@link openPgOperatorStore}).
 */
export async function openOperatorStore(config: Config, cwd: string, deps: OperatorStoreDeps): Promise<StoreAccess> {
  if (!config.turn_state.enabled) return { kind: 'disabled' };
  if (config.turn_state.backend === 'postgres' && config.turn_state.postgres !== undefined) return openPgOperatorStore(config.turn_state, config.turn_state.postgres, deps);
  const path = resolve(cwd, config.turn_state.db_path);
  if (!existsSync(path)) return { kind: 'missing', path };
  const options = { dbPath: path, clock: deps.clock, ids: new RandomIds(), logger: deps.logger, ...turnStoreTimings(config.turn_state) };
  let db;
  let store;
  try {
    db = openTurnDatabase(path);
    store = portsOnFile(db, options);
  } catch (error) {
    if (db?.open === true) db.close();
    return { kind: 'unusable', path, cause: causeOf(error) };
  }
  const { operator } = store;
  if (operator === undefined) throw new Error('a store file opened without its operators\' view');
  return { kind: 'opened', path, operator: redactingOperatorStore(operator, deps.secrets), close: () => store.close() };
}
