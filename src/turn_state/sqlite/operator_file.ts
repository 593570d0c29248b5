import { existsSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import { BlobStore } from '../blob_store.js';
import { causeOf } from '../errors.js';
import { operatorPort } from '../operations/operator_port.js';
import type { StoreAccess } from '../opened_store.js';
import { blobDirectoryFor, openTurnDatabase } from './file.js';
import { SqliteRunner } from './sqlite_runner.js';

/**
 * Opens the store file for an operator's command, read-write beside a running bot (DESIGN §7.7):
 * it takes no lock, sweeps nothing, imports nothing and leaves the inbox alone; SQLite's WAL and
 * busy timeout let both write safely. A file that does not exist is not created. Only the
 * operators' port is built on it, so the command loads none of the bot's operations.
 */
export function openFileForOperator(options: { readonly dbPath: string; readonly clock: Clock }): StoreAccess {
  const path = options.dbPath;
  if (!existsSync(path)) return { kind: 'missing', path };
  let db: Database | undefined;
  try {
    db = openTurnDatabase(path);
    const runner = new SqliteRunner(db, BlobStore.open(blobDirectoryFor(path)), options.clock);
    return { kind: 'opened', path, operator: operatorPort(runner), close: () => runner.close() };
  } catch (error) {
    if (db?.open === true) db.close();
    return { kind: 'unusable', path, cause: causeOf(error) };
  }
}
