/**
 * How a store operation is written once for both databases (DESIGN §7.1): as a generator that
 * yields instructions — run this statement, what time is it, where do blobs go — and receives
 * their answers. Each backend has a driver that carries the instructions out: SQLite's
 * synchronously, inside the transaction its group commit opened; PostgreSQL's with `await`, on the
 * connection of the operation's transaction. What truly differs between the two is in
 * {@link Dialect} and in the drivers; every rule is in the operations.
 *
 * @example
 * ```ts
 * function* markResolutionTold(turnId: string): Op<boolean> {
 *   const { changes } = yield* query('UPDATE turns SET resolution_untold = 0 WHERE turn_id = @turnId AND resolution_untold = 1', { turnId });
 *   return changes === 1;
 * }
 * // SQLite: sqliteDriver.run(markResolutionTold(id)); PostgreSQL: await pgDriver.run(markResolutionTold(id), client)
 * ```
 */
import type { BlobSink, BlobSource } from '../blob_store.js';

/** A statement's parameters by `@name`; an array is a list, for {@link Dialect.inList}. */
export type Params = Readonly<Record<string, unknown>>;

/** What a statement answered: the rows it read or returned, and how many rows it changed. */
export interface Rows<R> {
  readonly rows: R[];
  readonly changes: number;
}

/** What a statement says differently on the two databases. */
export interface Dialect {
  /** The larger of two values: SQLite's two-argument `MAX`, PostgreSQL's `GREATEST`. */
  readonly greatest: (a: string, b: string) => string;
  /** What locks the rows a SELECT reads until the transaction ends: nothing on SQLite, whose writer holds the whole file. */
  readonly forUpdate: string;
  /** The column that orders turns admitted in the same millisecond: SQLite's `rowid`, PostgreSQL's `admitted`. */
  readonly admissionOrder: string;
  /** `column` is one of the values of the list parameter `@param`. */
  readonly inList: (column: string, param: string) => string;
  /** Whether a statement failed on a unique or primary key. */
  readonly isUniqueViolation: (error: unknown) => boolean;
  /** Whether the store keeps a table of the processes sharing it (PostgreSQL's `instances`); a SQLite file has one process. */
  readonly processTable: boolean;
}

/** Whose blobs a read needs at hand: a turn's (those of its transcript or its ledger alone), or a channel history's. */
export type BlobScope = { readonly kind: 'turn'; readonly turnId: string; readonly owner?: 'transcript' | 'op' } | { readonly kind: 'history'; readonly channel: string };

/** One step of an operation, carried out by the backend's driver. */
export type Instruction =
  | { readonly kind: 'query'; readonly sql: string; readonly params: Params }
  /** The instant the operation is judged and stamped at: the Clock on SQLite, the database's `now_ms()` on PostgreSQL (DESIGN §7.7). */
  | { readonly kind: 'now' }
  | { readonly kind: 'dialect' }
  /** Where blobs go: stored before any row that refers to them; `undefined` keeps them inline (a store in memory). */
  | { readonly kind: 'blob_sink' }
  | { readonly kind: 'blob_source'; readonly scope: BlobScope }
  /** Deletes the blobs no row refers to; answers how many. */
  | { readonly kind: 'collect_blobs' }
  /** Makes operations of the same name take turns across processes until the transaction ends. */
  | { readonly kind: 'exclusive'; readonly name: string };

/** A store operation: a generator of {@link Instruction}s, answering `T`. */
export type Op<T> = Generator<Instruction, T, unknown>;

/** Runs one statement; `@name` parameters are taken from `params`. */
export function* query<R = Record<string, unknown>>(sql: string, params: Params = {}): Op<Rows<R>> {
  return (yield { kind: 'query', sql, params }) as Rows<R>;
}

/** The first row a statement answers, or `undefined`. */
export function* queryOne<R = Record<string, unknown>>(sql: string, params: Params = {}): Op<R | undefined> {
  return (yield* query<R>(sql, params)).rows[0];
}

/** The instant the operation runs at, by the store's clock. */
export function* now(): Op<number> {
  return (yield { kind: 'now' }) as number;
}

/** What the store's database says differently. */
export function* dialect(): Op<Dialect> {
  return (yield { kind: 'dialect' }) as Dialect;
}

/** Where the operation puts blobs; `undefined` when they stay inline. */
export function* blobSink(): Op<BlobSink | undefined> {
  return (yield { kind: 'blob_sink' }) as BlobSink | undefined;
}

/** The blobs of `scope`, ready for reading while rows are decoded; `undefined` when blobs stay inline. */
export function* blobSource(scope: BlobScope): Op<BlobSource | undefined> {
  return (yield { kind: 'blob_source', scope }) as BlobSource | undefined;
}

/** Deletes the blobs no row refers to any more; answers how many went. */
export function* collectBlobs(): Op<number> {
  return (yield { kind: 'collect_blobs' }) as number;
}

/** Waits until no other process runs an operation named `name`, and holds it off until the transaction ends. */
export function* exclusive(name: string): Op<void> {
  yield { kind: 'exclusive', name };
}

/** The blob source of a store that keeps blobs, which turns and their ledgers always do. */
export function* requiredBlobSource(scope: BlobScope): Op<BlobSource> {
  const source = yield* blobSource(scope);
  if (source === undefined) throw new Error('this store keeps no blobs, which turns need');
  return source;
}

/** The blob sink of a store that keeps blobs, which turns and their ledgers always do. */
export function* requiredBlobSink(): Op<BlobSink> {
  const sink = yield* blobSink();
  if (sink === undefined) throw new Error('this store keeps no blobs, which turns need');
  return sink;
}
