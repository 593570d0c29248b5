import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { pino } from 'pino';
import { RandomIds } from '../../src/core/ids.js';
import { SystemClock } from '../../src/core/system_clock.js';
import { openSqliteStore } from '../../src/turn_state/sqlite/open_store.js';
import { quantile, StoreWorkload, type BackendFigures } from './store_workload.js';

/** Bytes the process passed to write(2): the WAL frames and the pages copied back into the database. */
function bytesWritten(): number {
  const line = readFileSync('/proc/self/io', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('wchar:'));
  return Number(line?.split(/\s+/)[1] ?? 0);
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return 8;
  if (typeof value === 'object' && value !== null) return Object.values(value).reduce<number>((sum, v) => sum + valueBytes(v), 0);
  return 0;
}

/**
 * Counts what the store hands SQLite to write: the bytes of every value bound to a statement that
 * changes rows, whichever way it is run (`run`, or `all` and `get` for one with RETURNING).
 */
function countRowBytes(): () => number {
  let rowBytes = 0;
  const probe = new BetterSqlite3(':memory:');
  type Runner = (this: { readonly readonly: boolean }, ...params: unknown[]) => unknown;
  const statementPrototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<'run' | 'all' | 'get', Runner>;
  probe.close();
  for (const method of ['run', 'all', 'get'] as const) {
    const original = statementPrototype[method];
    statementPrototype[method] = function counted(...params: unknown[]): unknown {
      if (!this.readonly) rowBytes += params.reduce<number>((sum, value) => sum + valueBytes(value), 0);
      return original.apply(this, params);
    };
  }
  return () => rowBytes;
}

/** The workload on a real SQLite file opened as the bot opens it; `concurrency` turns at once as well, when given. */
export async function benchSqlite(concurrency: number | undefined): Promise<BackendFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-bench-'));
  const dbPath = join(dir, 'turns.sqlite3');
  const rowBytes = countRowBytes();
  const opened = openSqliteStore({
    enabled: true,
    dbPath,
    baseDir: dir,
    clock: new SystemClock(),
    ids: new RandomIds(),
    logger: pino({ level: 'silent' }),
    leaseTtlMs: 600_000,
    resumeTtlMs: 86_400_000,
    payloadRetentionMs: 7 * 86_400_000,
    ledgerRetentionMs: 90 * 86_400_000,
    usageRetentionMs: 400 * 86_400_000,
  });
  if (!opened.turns.durable) throw new Error('the store did not open');
  try {
    const workload = new StoreWorkload(opened.turns);
    // The log's growth, not write(2)'s bytes: the checkpoint worker copies pages in the same process.
    // A write into a log restarted after a checkpoint does not grow it, and is not counted.
    const logGrowths: number[] = [];
    const logSize = (): number => statSync(`${dbPath}-wal`).size;
    const latencies = await workload.latencies(async (move) => {
      const before = logSize();
      await move();
      const grown = logSize() - before;
      if (grown > 0) logGrowths.push(grown);
    });
    const throughput = concurrency === undefined ? undefined : await workload.concurrentTurns(Math.max(200, concurrency * 10), concurrency);
    const before = { written: bytesWritten(), rows: rowBytes() };
    const turnId = await workload.longTurn();
    const written = bytesWritten() - before.written;
    const rows = rowBytes() - before.rows;
    const reader = new BetterSqlite3(dbPath, { readonly: true });
    const sizes = reader
      .prepare(
        `SELECT (SELECT SUM(length(CAST(message AS BLOB))) FROM transcript WHERE turn_id = @turn) AS transcript,
                (SELECT SUM(length(CAST(input AS BLOB)) + length(CAST(result AS BLOB))) FROM ops WHERE turn_id = @turn) AS ledger`,
      )
      .get({ turn: turnId }) as { transcript: number; ledger: number };
    reader.close();
    return {
      name: 'sqlite',
      latencies,
      throughput,
      ...(logGrowths.length === 0 ? {} : { loneLogBytes: Number(quantile(logGrowths, 0.5)) }),
      turn: {
        commitsPerStep: workload.commitsPerStep,
        ...sizes,
        written: [
          { what: 'row bytes written', bytes: rows, means: 'every value bound to a write: transcript, ledger, checkpoints, turn row' },
          { what: 'write(2) on DB and WAL', bytes: written, means: '4 KiB pages per transaction, each page written to the WAL and again at WAL checkpoints' },
        ],
      },
    };
  } finally {
    await opened.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
