import { existsSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import { BlobStore } from './blob_store.js';
import { causeOf, isStoreInUseError, type StoreHolder } from './errors.js';
import { migratePg, PG_MIGRATIONS } from './postgres/pg_migrations.js';
import { openPgPool, type PgConnection } from './postgres/pg_pool.js';
import { inTransaction } from './postgres/pg_runner.js';
import { copySqliteToPg, isCopyMismatchError, isTargetNotEmptyError, type TableCount } from './postgres/sqlite_to_pg_copy.js';
import { blobDirectoryFor, openTurnDatabaseReadOnly } from './sqlite/file.js';
import { lockStoreFile } from './sqlite/store_lock.js';

export type { TableCount } from './postgres/sqlite_to_pg_copy.js';

/** What became of a copy of a stopped SQLite installation into PostgreSQL. */
export type StoreMigration =
  | { readonly kind: 'copied'; readonly counts: readonly TableCount[] }
  | { readonly kind: 'missing' }
  /** A bot process holds the file: only a stopped installation is copied. */
  | { readonly kind: 'in_use'; readonly holder: StoreHolder | undefined }
  | { readonly kind: 'unreadable'; readonly cause: string }
  /** The file was written by another version of this program than the one copying it. */
  | { readonly kind: 'other_version'; readonly version: number; readonly expected: number }
  /** The target schema holds rows already: a copy would mix two installations. */
  | { readonly kind: 'not_empty'; readonly detail: string }
  /** The copy failed and left no row in the target. */
  | { readonly kind: 'failed'; readonly cause: string };

/**
 * Copies the stopped installation's store file at `dbPath` (read-only, taken so that no bot starts
 * on it meanwhile) and its blobs into the empty PostgreSQL schema of `target`, brought to this
 * program's schema first, in one transaction, each table's count checked against the file's.
 */
export async function copyStoreToPostgres(dbPath: string, target: PgConnection, now: number): Promise<StoreMigration> {
  if (!existsSync(dbPath)) return { kind: 'missing' };
  let lock;
  try {
    lock = lockStoreFile(dbPath, now);
  } catch (error) {
    if (!isStoreInUseError(error)) throw error;
    return { kind: 'in_use', holder: error.holder };
  }
  try {
    return await copyStopped(dbPath, target);
  } finally {
    lock.release();
  }
}

async function copyStopped(dbPath: string, target: PgConnection): Promise<StoreMigration> {
  let opened;
  try {
    opened = openTurnDatabaseReadOnly(dbPath);
  } catch (error) {
    return { kind: 'unreadable', cause: causeOf(error) };
  }
  if (opened.kind === 'other_version') return opened;
  try {
    return await copyInto(opened.db, dbPath, target);
  } finally {
    opened.db.close();
  }
}

async function copyInto(source: Database, dbPath: string, target: PgConnection): Promise<StoreMigration> {
  const blobDir = blobDirectoryFor(dbPath);
  const blobs = existsSync(blobDir) ? BlobStore.open(blobDir) : undefined;
  const pool = openPgPool(target);
  try {
    await migratePg(pool, target.schema, PG_MIGRATIONS);
    return { kind: 'copied', counts: await inTransaction(pool, (db) => copySqliteToPg(source, blobs, db)) };
  } catch (error) {
    if (isTargetNotEmptyError(error)) return { kind: 'not_empty', detail: error.message };
    return { kind: 'failed', cause: isCopyMismatchError(error) ? error.message : causeOf(error) };
  } finally {
    await pool.end();
  }
}
