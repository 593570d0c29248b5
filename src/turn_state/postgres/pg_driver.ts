import { assertNever } from '../../core/assert_never.js';
import { blobDigest, type BlobSink, type BlobSource } from '../blob_store.js';
import type { BlobScope, Dialect, Instruction, Op, Params, Rows } from '../operations/instructions.js';
import { runOpAsync } from '../operations/run_op.js';
import type { PgQueryable } from './pg_pool.js';

/** PostgreSQL's SQLSTATE for a unique or primary key violation. */
const UNIQUE_VIOLATION = '23505';

/** What a PostgreSQL statement says its own way. */
export const POSTGRES: Dialect = {
  greatest: (a, b) => `GREATEST(${a}, ${b})`,
  forUpdate: ' FOR UPDATE',
  admissionOrder: 'admitted',
  inList: (column, param) => `${column} = ANY(@${param})`,
  isUniqueViolation: (error) => typeof error === 'object' && error !== null && 'code' in error && error.code === UNIQUE_VIOLATION,
  processTable: true,
};

/**
 * Carries out a store operation on one connection (or the pool, for a read), awaiting each
 * instruction (DESIGN §7.7): "now" is the database's clock (`now_ms()`), blobs are `blobs` rows,
 * written before the next statement so that they exist before any row that refers to them.
 */
export function runOnPostgres<T>(op: Op<T>, db: PgQueryable): Promise<T> {
  const pending = new PendingBlobs();
  return runOpAsync(op, async (instruction) => {
    if (instruction.kind === 'query') await pending.writeTo(db);
    return carryOut(instruction, db, pending);
  }).then(async (answer) => {
    await pending.writeTo(db);
    return answer;
  });
}

async function carryOut(instruction: Instruction, db: PgQueryable, pending: PendingBlobs): Promise<unknown> {
  switch (instruction.kind) {
    case 'query':
      return query(db, instruction.sql, instruction.params);
    case 'now': {
      const { rows } = await db.query<{ now: number }>('SELECT now_ms() AS now');
      const now = rows[0]?.now;
      if (now === undefined) throw new Error('the database did not say what time it is');
      return now;
    }
    case 'dialect':
      return POSTGRES;
    case 'blob_sink':
      return pending;
    case 'blob_source':
      return loadBlobs(db, instruction.scope);
    case 'collect_blobs': {
      // A blob a write in progress is storing again is locked by that write and skipped: it is about to be referred to.
      const { rowCount } = await db.query(
        `DELETE FROM blobs WHERE digest IN (
           SELECT digest FROM blobs AS unreferenced
           WHERE NOT EXISTS (SELECT 1 FROM blob_refs WHERE blob_refs.digest = unreferenced.digest)
             AND NOT EXISTS (SELECT 1 FROM history_blob_refs WHERE history_blob_refs.digest = unreferenced.digest)
           FOR UPDATE SKIP LOCKED)`,
      );
      return rowCount ?? 0;
    }
    case 'exclusive':
      await db.query(`SELECT pg_advisory_xact_lock(hashtext('holdfast:' || $1 || ':' || current_schema()))`, [instruction.name]);
      return undefined;
    default:
      return assertNever(instruction);
  }
}

async function query(db: PgQueryable, sql: string, params: Params): Promise<Rows<unknown>> {
  const statement = named(sql, params);
  const result = await db.query(statement.text, statement.values);
  return { rows: result.rows, changes: result.rowCount ?? 0 };
}

/** The blobs rows refer to that are missing. */
export async function missingBlobs(db: PgQueryable): Promise<string[]> {
  const { rows } = await db.query<{ digest: string }>('SELECT digest FROM blob_refs UNION SELECT digest FROM history_blob_refs EXCEPT SELECT digest FROM blobs ORDER BY digest');
  return rows.map((row) => `blob ${row.digest} is referenced but missing from the blobs table`);
}

const BLOBS_OF_TURN = 'SELECT blobs.digest, blobs.bytes FROM blobs JOIN blob_refs USING (digest) WHERE blob_refs.turn_id = @turnId';
const BLOBS_OF_CHANNEL = `SELECT digest, bytes FROM blobs WHERE digest IN (
  SELECT refs.digest FROM history_blob_refs refs JOIN history_entries entries ON entries.id = refs.entry_id WHERE entries.channel = @channel)`;

/** The blobs of `scope`, read ahead of decoding and answering by digest. */
async function loadBlobs(db: PgQueryable, scope: BlobScope): Promise<BlobSource> {
  const { rows } = await query(db, ...blobQuery(scope));
  return new LoadedBlobs(new Map((rows as { digest: string; bytes: Buffer }[]).map((row) => [row.digest, row.bytes])));
}

function blobQuery(scope: BlobScope): [string, Params] {
  switch (scope.kind) {
    case 'turn':
      return scope.owner === undefined ? [BLOBS_OF_TURN, { turnId: scope.turnId }] : [`${BLOBS_OF_TURN} AND blob_refs.owner = @owner`, { turnId: scope.turnId, owner: scope.owner }];
    case 'history':
      return [BLOBS_OF_CHANNEL, { channel: scope.channel }];
    default:
      return assertNever(scope);
  }
}

/** Blobs read ahead of decoding; one that was not read is missing. */
class LoadedBlobs implements BlobSource {
  constructor(private readonly bytes: ReadonlyMap<string, Buffer>) {}

  get(digest: string): Buffer {
    const bytes = this.bytes.get(digest);
    if (bytes === undefined) throw new Error(`blob ${digest} is missing from the store`);
    return bytes;
  }
}

/**
 * The blobs an operation puts, held until they are stored as `blobs` rows in its transaction. Bytes
 * already stored under the same digest are not written again, but their row is locked until the
 * write commits, so that blob collection (which skips locked rows) cannot delete it before the
 * reference is stored.
 */
class PendingBlobs implements BlobSink {
  readonly #bytes = new Map<string, Uint8Array>();

  put(bytes: Uint8Array): string {
    const digest = blobDigest(bytes);
    this.#bytes.set(digest, bytes);
    return digest;
  }

  async writeTo(db: PgQueryable): Promise<void> {
    if (this.#bytes.size === 0) return;
    // In digest order, so that two writers storing the same blobs lock them in the same order and never deadlock.
    for (const [digest, bytes] of [...this.#bytes].sort(([a], [b]) => (a < b ? -1 : 1))) {
      await db.query('INSERT INTO blobs (digest, bytes) VALUES ($1, $2) ON CONFLICT (digest) DO UPDATE SET bytes = blobs.bytes', [digest, Buffer.from(bytes)]);
    }
    this.#bytes.clear();
  }
}

/** A statement in PostgreSQL's positional form. */
interface PositionalStatement {
  readonly text: string;
  readonly values: unknown[];
}

const NAME = /@([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * `text` with each `@name` replaced by a `$n` placeholder and `values` in that order, so that one
 * statement serves both databases; a name used twice is one parameter.
 * @throws {Error} when the statement names a parameter `params` does not give.
 */
export function named(text: string, params: Params): PositionalStatement {
  const order: string[] = [];
  const positional = text.replace(NAME, (_, name: string) => {
    if (!(name in params)) throw new Error(`the statement names @${name}, which no parameter gives`);
    let index = order.indexOf(name);
    if (index < 0) index = order.push(name) - 1;
    return `$${index + 1}`;
  });
  return { text: positional, values: order.map((name) => params[name]) };
}
