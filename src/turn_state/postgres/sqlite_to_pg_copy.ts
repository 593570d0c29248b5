import type { Database } from 'better-sqlite3';
import { marked } from '../../core/marked.js';
import { blobDigest, type BlobStore } from '../blob_store.js';
import type { PgQueryable } from './pg_pool.js';

/** How many rows a table (or `blobs`) holds. */
export interface TableCount {
  readonly table: string;
  readonly count: number;
}

/** Rows sent in one INSERT, and the characters of text after which a batch goes early. */
const BATCH_ROWS = 500;
const BATCH_CHARS = 4_000_000;

const NOT_EMPTY = marked<TargetNotEmptyError>('TargetNotEmptyError');
const MISMATCH = marked<CopyMismatchError>('CopyMismatchError');

/** The PostgreSQL schema already holds a store: a copy would mix two installations. */
export class TargetNotEmptyError extends Error {
  override readonly name = 'TargetNotEmptyError';

  constructor(readonly occupied: readonly TableCount[]) {
    super(`it already holds rows (${occupied.map((entry) => `${entry.table}: ${entry.count}`).join(', ')})`);
    NOT_EMPTY.mark(this);
  }
}

export const isTargetNotEmptyError = NOT_EMPTY.is;

/** A table holds another number of rows in PostgreSQL than in the SQLite file after the copy. */
export class CopyMismatchError extends Error {
  override readonly name = 'CopyMismatchError';

  constructor(
    readonly table: string,
    readonly expected: number,
    readonly found: number,
  ) {
    super(`${table} holds ${found} rows in PostgreSQL where the SQLite store holds ${expected}`);
    MISMATCH.mark(this);
  }
}

export const isCopyMismatchError = MISMATCH.is;

/**
 * Copies a stopped SQLite store — every row of {@link COPIED_TABLES}, ids and states as they are,
 * and every blob of its blob directory (`undefined` when it has none) — into `target`, a
 * connection inside a transaction that the caller commits, and checks that each table and the
 * blobs then hold as many rows as the SQLite store. The file is read in one read transaction.
 * @returns the count of each table, then of `blobs`.
 * @throws {TargetNotEmptyError} when any table of the target holds a row; nothing is written then.
 * @throws {CopyMismatchError} when a count differs after the copy.
 * @throws when a blob's bytes do not match its name, or PostgreSQL refuses a row.
 */
export async function copySqliteToPg(source: Database, blobs: BlobStore | undefined, target: PgQueryable): Promise<TableCount[]> {
  await refuseOccupied(target);
  source.exec('BEGIN');
  try {
    const blobCount = await copyBlobs(blobs, target);
    const counts: TableCount[] = [];
    for (const table of COPIED_TABLES) {
      await copyRows(source, table, target);
      if (table.identity !== undefined) await continueNumbering(source, table, table.identity, target);
      counts.push(await verifiedCount(table.name, countIn(source, table.name), target));
    }
    counts.push(await verifiedCount('blobs', blobCount, target));
    return counts;
  } finally {
    source.exec('COMMIT');
  }
}

/** Locks every table of the target against other writers until the transaction ends, and refuses one that holds a row. */
async function refuseOccupied(target: PgQueryable): Promise<void> {
  const names = ['blobs', ...COPIED_TABLES.map((table) => table.name)];
  await target.query(`LOCK TABLE ${names.join(', ')} IN SHARE ROW EXCLUSIVE MODE`);
  const { rows } = await target.query<TableCount>(names.map((name) => `SELECT '${name}' AS "table", count(*) AS count FROM ${name}`).join(' UNION ALL '));
  const occupied = rows.filter((row) => row.count > 0);
  if (occupied.length > 0) throw new TargetNotEmptyError(occupied);
}

async function copyBlobs(blobs: BlobStore | undefined, target: PgQueryable): Promise<number> {
  const digests = blobs?.list() ?? [];
  for (const digest of digests) {
    const bytes = blobs?.get(digest) ?? Buffer.alloc(0);
    if (blobDigest(bytes) !== digest) throw new Error(`blob ${digest} is damaged: its bytes do not match its name`);
    await target.query('INSERT INTO blobs (digest, bytes) VALUES ($1, $2)', [digest, bytes]);
  }
  return digests.length;
}

async function copyRows(source: Database, table: CopiedTable, target: PgQueryable): Promise<void> {
  const rows = source
    .prepare(`SELECT ${table.columns.map((column) => sqliteColumn(table, column)).join(', ')} FROM ${table.name} ORDER BY ${table.order}`)
    .raw(true)
    .iterate() as IterableIterator<unknown[]>;
  let batch: unknown[][] = [];
  let chars = 0;
  for (const row of rows) {
    batch.push(row);
    chars += row.reduce<number>((sum, value) => sum + (typeof value === 'string' ? value.length : 8), 0);
    if (batch.length === BATCH_ROWS || chars >= BATCH_CHARS) {
      await insertRows(table, batch, target);
      batch = [];
      chars = 0;
    }
  }
  if (batch.length > 0) await insertRows(table, batch, target);
}

async function insertRows(table: CopiedTable, rows: readonly unknown[][], target: PgQueryable): Promise<void> {
  const width = table.columns.length;
  const tuples = rows.map((_, row) => `(${table.columns.map((__, column) => `$${row * width + column + 1}`).join(', ')})`);
  const overriding = table.identity === undefined ? '' : ' OVERRIDING SYSTEM VALUE';
  await target.query(`INSERT INTO ${table.name} (${table.columns.join(', ')})${overriding} VALUES ${tuples.join(', ')}`, rows.flat());
}

/** Makes PostgreSQL number the table's next row after every number SQLite gave, so that no id is given twice. */
async function continueNumbering(source: Database, table: CopiedTable, identity: NonNullable<CopiedTable['identity']>, target: PgQueryable): Promise<void> {
  const highest = source.prepare<[], { top: number | null }>(`SELECT max(${table.sourceOf?.[identity.column] ?? identity.column}) AS top FROM ${table.name}`).get()?.top ?? 0;
  const given = identity.autoincrement ? (source.prepare<[string], { seq: number }>('SELECT seq FROM sqlite_sequence WHERE name = ?').get(table.name)?.seq ?? 0) : 0;
  await target.query('SELECT setval(pg_get_serial_sequence($1, $2), $3, false)', [table.name, identity.column, Math.max(highest, given) + 1]);
}

function countIn(source: Database, table: string): number {
  return source.prepare<[], { count: number }>(`SELECT count(*) AS count FROM ${table}`).get()?.count ?? 0;
}

async function verifiedCount(table: string, expected: number, target: PgQueryable): Promise<TableCount> {
  const { rows } = await target.query<{ count: number }>(`SELECT count(*) AS count FROM ${table}`);
  const found = rows[0]?.count ?? 0;
  if (found !== expected) throw new CopyMismatchError(table, expected, found);
  return { table, count: found };
}

/** A table of the store that `holdfast migrate` copies from the SQLite file into PostgreSQL. */
export interface CopiedTable {
  readonly name: string;
  /** The columns both stores have, as PostgreSQL names them. */
  readonly columns: readonly string[];
  /** How SQLite reads a column whose name differs there. */
  readonly sourceOf?: Readonly<Record<string, string>>;
  /** SQLite's order of the rows, so that they arrive in PostgreSQL in the order they were written. */
  readonly order: string;
  /**
   * The identity column whose values are copied as they are, after which PostgreSQL numbers new
   * rows; `autoincrement` when SQLite never reuses a number, not even that of a deleted last row.
   */
  readonly identity?: { readonly column: string; readonly autoincrement: boolean };
}

/**
 * Every table the two stores share, parents before the rows that refer to them (blobs, which
 * are files beside the SQLite store, go first). A turn's SQLite rowid, which orders turns
 * admitted in the same millisecond, becomes its `admitted`; `owner_instance` stays empty, no
 * process owning a stopped installation's turns. SQLite's record of the previous layout's import
 * stays behind, there being nothing left to import, and so does its readiness probe's row.
 */
export const COPIED_TABLES: readonly CopiedTable[] = [
  {
    name: 'turns',
    columns: [
      'admitted',
      'turn_id',
      'source',
      'channel_id',
      'message_id',
      'requester_id',
      'message_digest',
      'status',
      'generation',
      'revision',
      'lease_token',
      'lease_expires_at',
      'created_at',
      'updated_at',
      'last_progress_at',
      'recovery_deadline_at',
      'suspension_reason',
      'failure_reason',
      'payload_compacted',
      'resolution_untold',
      'traces',
    ],
    sourceOf: { admitted: 'rowid' },
    order: 'rowid',
    identity: { column: 'admitted', autoincrement: false },
  },
  { name: 'transcript', columns: ['turn_id', 'seq', 'message'], order: 'turn_id, seq' },
  { name: 'checkpoints', columns: ['turn_id', 'seq', 'transcript_length', 'state', 'created_at'], order: 'turn_id, seq' },
  {
    name: 'ops',
    columns: [
      'turn_id',
      'step',
      'tool_call_id',
      'tool_name',
      'effect',
      'state',
      'idempotency_key',
      'fingerprint',
      'input',
      'result',
      'result_blob',
      'error',
      'created_at',
      'updated_at',
      'verdict_by',
      'verdict_at',
      'verdict_text',
      'approval_requested_at',
      'approval_expires_at',
      'approval_message',
      'approval_verdict',
      'approval_by',
      'approval_at',
      'approval_note',
    ],
    order: 'turn_id, step, tool_call_id',
  },
  { name: 'op_moves', columns: ['turn_id', 'step', 'tool_call_id', 'state', 'moved_at', 'moved_by'], order: 'turn_id, step, tool_call_id, state' },
  { name: 'blob_refs', columns: ['turn_id', 'digest', 'owner'], order: 'turn_id, digest, owner' },
  { name: 'replies', columns: ['turn_id', 'state', 'text', 'parts_delivered', 'created_at', 'updated_at', 'delivered_at', 'failure', 'written_by_model', 'written_by_fallback'], order: 'turn_id' },
  { name: 'inbox', columns: ['id', 'source', 'channel_id', 'message_id', 'message', 'accepted_at'], order: 'id', identity: { column: 'id', autoincrement: true } },
  { name: 'history_channels', columns: ['channel', 'revision'], order: 'channel' },
  {
    name: 'history_entries',
    columns: ['id', 'channel', 'role', 'text', 'author_id', 'author_name', 'message_id', 'attachments', 'created_at'],
    order: 'id',
    identity: { column: 'id', autoincrement: true },
  },
  { name: 'history_blob_refs', columns: ['entry_id', 'digest'], order: 'entry_id, digest' },
  { name: 'memory_notes', columns: ['id', 'idempotency_key', 'scope', 'owner_id', 'text', 'created_at'], order: 'id', identity: { column: 'id', autoincrement: false } },
  { name: 'channel_models', columns: ['channel', 'model', 'chosen_by', 'chosen_at'], order: 'channel' },
  { name: 'approval_rules', columns: ['source', 'channel_id', 'tool_name', 'allowed_by', 'allowed_at'], order: 'source, channel_id, tool_name' },
  {
    name: 'usage_turns',
    columns: ['source', 'channel_id', 'message_id', 'user_id', 'server_id', 'counted_at', 'refused_scope', 'refused_kind', 'refused_max', 'refused_used', 'resets_at'],
    order: 'rowid',
  },
  {
    name: 'usage_calls',
    columns: ['id', 'source', 'channel_id', 'message_id', 'user_id', 'server_id', 'called_at', 'model', 'input_tokens', 'output_tokens', 'cached_input_tokens', 'reasoning_tokens', 'cost'],
    order: 'id',
    identity: { column: 'id', autoincrement: true },
  },
  {
    name: 'usage_days',
    columns: [
      'day',
      'source',
      'user_id',
      'channel_id',
      'server_id',
      'model',
      'turns',
      'refusals',
      'calls',
      'unknown_calls',
      'input_tokens',
      'cached_input_tokens',
      'output_tokens',
      'reasoning_tokens',
      'cost',
    ],
    order: 'day, source, user_id, channel_id, server_id, model',
  },
];

/** The SQLite expression of a column. */
export function sqliteColumn(table: CopiedTable, column: string): string {
  const source = table.sourceOf?.[column];
  return source === undefined ? column : `${source} AS ${column}`;
}
