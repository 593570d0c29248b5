import { parseArgs } from 'node:util';
import { measureAppendSync, measureDisk } from './store_disk.js';
import { quantile, STEPS, CALLS_PER_STEP, SAMPLES, LOAD_TURN_WRITES, type BackendFigures } from './store_workload.js';
import { benchPostgres } from './store_postgres.js';
import { benchSqlite } from './store_sqlite.js';

/**
 * The turn store's cost with production settings: latency of each durable point of a step beside
 * what the disk does alone in the same run (a one-row `synchronous=FULL` commit of SQLite, a raw
 * `fdatasync`, and, measured after the stores, an `fdatasync` after appending as many bytes as a
 * lone SQLite write (WI-2) adds to its log, which is what its durable point syncs), and the
 * commits and bytes one 200-step turn writes against the size of its transcript. `--concurrency N`
 * also runs N of the load bench's turns at once (each 11 durable writes through the store's ports)
 * and prints the durable writes a second beside the disk's `fdatasync`s a second. `--backend postgres` measures PostgreSQL beside SQLite in the same run.
 *
 *   npm run bench:store [-- --backend sqlite|postgres] [-- --concurrency N]
 */
const USAGE = 'usage: npm run bench:store -- [--backend sqlite|postgres] [--concurrency N]';
const { values } = parseArgs({ options: { backend: { type: 'string', default: 'sqlite' }, concurrency: { type: 'string' }, help: { type: 'boolean', default: false } } });
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (values.backend !== 'sqlite' && values.backend !== 'postgres') throw new Error(`--backend is sqlite or postgres, not "${values.backend}"\n${USAGE}`);
const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1)) throw new Error(`--concurrency is a whole number of turns of at least 1, not "${values.concurrency}"\n${USAGE}`);

const disk = measureDisk();
const figures: BackendFigures[] = [await benchSqlite(concurrency)];
if (values.backend === 'postgres') figures.push(await benchPostgres(concurrency));
const logGrowth = figures[0]?.loneLogBytes;
const appendSync = logGrowth === undefined ? undefined : measureAppendSync(logGrowth);

console.log(`durable writes, ${SAMPLES} samples each (ms)`);
console.log(['operation'.padEnd(22), ...figures.map((f) => `${f.name} p50`.padStart(14) + `${f.name} p99`.padStart(14))].join(''));
const operations = Object.keys(figures[0]?.latencies ?? {});
const row = (samples: readonly number[]): string => `${quantile(samples, 0.5).padStart(14)}${quantile(samples, 0.99).padStart(14)}`;
for (const name of operations) console.log([name.padEnd(22), ...figures.map((f) => row(f.latencies[name] ?? []))].join(''));

console.log(`\nthis disk, same run, ${SAMPLES} samples each (ms)`);
console.log(`${'one-row commit, synchronous=FULL'.padEnd(36)}${row(disk.fullCommit)}`);
console.log(`${'fdatasync after a 4 KiB write'.padEnd(36)}${row(disk.fdatasync)}`);
if (appendSync !== undefined) console.log(`${`fdatasync after a ${logGrowth}-byte append`.padEnd(36)}${row(appendSync)}`);
const median = (samples: readonly number[]): number => Number(quantile(samples, 0.5));
for (const f of figures) {
  const lone = f.latencies['WI-2 RUNNING'] ?? [];
  console.log(`${f.name}: WI-2 p50 = ${(median(lone) / median(disk.fullCommit)).toFixed(2)}x the one-row FULL commit, ${(median(lone) / median(disk.fdatasync)).toFixed(2)}x the fdatasync`);
  if (f.loneLogBytes !== undefined) console.log(`${f.name}: WI-2 appends ${f.loneLogBytes} bytes (p50) to the log, synced before it is answered (the append above)`);
}

if (concurrency !== undefined) {
  console.log(`\n${concurrency} turns at once, ${LOAD_TURN_WRITES} durable writes a turn (the load bench's turn)`);
  console.log(`${'backend'.padEnd(10)}${'turns'.padStart(8)}${'seconds'.padStart(10)}${'writes/s'.padStart(12)}${'÷ disk fdatasync/s'.padStart(20)}`);
  for (const f of figures) {
    const t = f.throughput;
    if (t === undefined) continue;
    const perSecond = t.writes / t.seconds;
    console.log(
      `${f.name.padEnd(10)}${String(t.turns).padStart(8)}${t.seconds.toFixed(2).padStart(10)}${perSecond.toFixed(0).padStart(12)}${(perSecond / disk.fdatasyncPerSecond).toFixed(2).padStart(20)}`,
    );
  }
  console.log(`${'disk'.padEnd(10)}${''.padStart(8)}${''.padStart(10)}${disk.fdatasyncPerSecond.toFixed(0).padStart(12)}  fdatasyncs/s, one after another`);
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;
for (const f of figures) {
  console.log(`\n${f.name}: one ${STEPS}-step turn, ${CALLS_PER_STEP} reads a step`);
  console.log(`commits per step        ${f.turn.commitsPerStep.toFixed(1).padStart(9)}  (WI-1, then the reads settled with the checkpoint, which stores the next deadline)`);
  console.log(`final transcript        ${kb(f.turn.transcript).padStart(9)}`);
  console.log(`ledger inputs/results   ${kb(f.turn.ledger).padStart(9)}`);
  for (const written of f.turn.written) {
    console.log(`${written.what.padEnd(23)} ${kb(written.bytes).padStart(9)}  = ${(written.bytes / f.turn.transcript).toFixed(2)}x the final transcript  (${written.means})`);
  }
}
