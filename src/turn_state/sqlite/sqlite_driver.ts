import type { Database, Statement } from 'better-sqlite3';
import { assertNever } from '../../core/assert_never.js';
import type { Clock } from '../../core/clock.js';
import type { BlobStore } from '../blob_store.js';
import type { Dialect, Instruction, Op, Params, Rows } from '../operations/instructions.js';
import { runOp } from '../operations/run_op.js';

/** What a SQLite statement says its own way. */
export const SQLITE: Dialect = {
  greatest: (a, b) => `MAX(${a}, ${b})`,
  forUpdate: '',
  admissionOrder: 'rowid',
  inList: (column, param) => `${column} IN (SELECT value FROM json_each(@${param}))`,
  isUniqueViolation: (error) => typeof error === 'object' && error !== null && 'code' in error && (error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || error.code === 'SQLITE_CONSTRAINT_UNIQUE'),
  processTable: false,
};

/**
 * Carries out store operations on one SQLite connection, synchronously, inside whatever
 * transaction the caller opened (DESIGN §7.1): each statement prepared once per connection, the
 * store's clock for "now", the blob directory beside the file for blobs (none for a database in
 * memory, whose blobs stay inline).
 */
export class SqliteDriver {
  readonly #statements = new Map<string, Statement>();

  constructor(
    readonly db: Database,
    readonly blobs: BlobStore | undefined,
    private readonly clock: Clock,
  ) {}

  /** Runs `op` to its answer. */
  run<T>(op: Op<T>): T {
    return runOp(op, (instruction) => this.#carryOut(instruction));
  }

  /** SQLite's own check of the file's pages, and the blobs rows refer to that are missing. */
  storageProblems(): string[] {
    const problems = (this.db.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check).filter((line) => line !== 'ok');
    const blobs = this.blobs;
    if (blobs === undefined) return problems;
    for (const digest of this.referencedBlobs()) if (!blobs.has(digest)) problems.push(`blob ${digest} is referenced but missing from ${blobs.dir}`);
    return problems;
  }

  /** Every blob a row refers to, in order. */
  referencedBlobs(): string[] {
    return (this.#statement('SELECT digest FROM blob_refs UNION SELECT digest FROM history_blob_refs ORDER BY digest').all() as { digest: string }[]).map((row) => row.digest);
  }

  #carryOut(instruction: Instruction): unknown {
    switch (instruction.kind) {
      case 'query':
        return this.#query(instruction.sql, instruction.params);
      case 'now':
        return this.clock.now();
      case 'dialect':
        return SQLITE;
      case 'blob_sink':
      case 'blob_source':
        return this.blobs;
      case 'collect_blobs': {
        const blobs = this.blobs;
        if (blobs === undefined) return 0;
        const referenced = new Set(this.referencedBlobs());
        return blobs.list().filter((digest) => !referenced.has(digest) && blobs.delete(digest)).length;
      }
      case 'exclusive':
        // The writer holds the whole file already.
        return undefined;
      default:
        return assertNever(instruction);
    }
  }

  #query(sql: string, params: Params): Rows<unknown> {
    const statement = this.#statement(sql);
    const bound = sqliteParams(params);
    if (statement.reader) {
      const rows = statement.all(bound);
      return { rows, changes: rows.length };
    }
    return { rows: [], changes: statement.run(bound).changes };
  }

  #statement(sql: string): Statement {
    let prepared = this.#statements.get(sql);
    if (prepared === undefined) {
      prepared = this.db.prepare(sql);
      this.#statements.set(sql, prepared);
    }
    return prepared;
  }
}

/** Parameters as SQLite binds them: a list as JSON (for `json_each`), a flag as 0 or 1, nothing as NULL. */
function sqliteParams(params: Params): Record<string, unknown> {
  const bound: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    bound[name] = Array.isArray(value) ? JSON.stringify(value) : typeof value === 'boolean' ? Number(value) : (value ?? null);
  }
  return bound;
}
