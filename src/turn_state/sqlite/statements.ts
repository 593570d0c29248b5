import type { Database, Statement } from 'better-sqlite3';

const caches = new WeakMap<Database, Map<string, Statement>>();

/** The prepared statement for `sql` on `db`, prepared once and reused. */
export function statement(db: Database, sql: string): Statement {
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = new Map();
    caches.set(db, cache);
  }
  let prepared = cache.get(sql);
  if (prepared === undefined) {
    prepared = db.prepare(sql);
    cache.set(sql, prepared);
  }
  return prepared;
}
