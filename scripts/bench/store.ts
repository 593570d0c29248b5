import { parseArgs } from 'node:util';
import { quantile, STEPS, CALLS_PER_STEP, SAMPLES, type BackendFigures, type Latencies } from './store_workload.js';
import { benchPostgres } from './store_postgres.js';
import { benchSqlite } from './store_sqlite.js';

/**
 * The turn store's cost with production settings: latency of each durable point of a step, and
 * the bytes one 200-step turn writes against the size of its transcript. `--backend postgres`
 * measures PostgreSQL beside SQLite in the same run.
 */
const { values } = parseArgs({ options: { backend: { type: 'string', default: 'sqlite' } } });
if (values.backend !== 'sqlite' && values.backend !== 'postgres') throw new Error(`--backend is sqlite or postgres, not "${values.backend}"`);

const figures: BackendFigures[] = [await benchSqlite()];
if (values.backend === 'postgres') figures.push(await benchPostgres());

console.log(`durable writes, ${SAMPLES} samples each (ms)`);
console.log(['operation'.padEnd(22), ...figures.map((f) => `${f.name} p50`.padStart(14) + `${f.name} p99`.padStart(14))].join(''));
const operations = Object.keys(figures[0]?.latencies ?? {});
const row = (latencies: Latencies, name: string): string => `${quantile(latencies[name] ?? [], 0.5).padStart(14)}${quantile(latencies[name] ?? [], 0.99).padStart(14)}`;
for (const name of operations) console.log([name.padEnd(22), ...figures.map((f) => row(f.latencies, name))].join(''));

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;
for (const f of figures) {
  console.log(`\n${f.name}: one ${STEPS}-step turn, ${CALLS_PER_STEP} reads a step`);
  console.log(`commits per step        ${f.turn.commitsPerStep.toFixed(1).padStart(9)}  (deadline, WI-1, then the reads settled with the checkpoint)`);
  console.log(`final transcript        ${kb(f.turn.transcript).padStart(9)}`);
  console.log(`ledger inputs/results   ${kb(f.turn.ledger).padStart(9)}`);
  for (const written of f.turn.written) {
    console.log(`${written.what.padEnd(23)} ${kb(written.bytes).padStart(9)}  = ${(written.bytes / f.turn.transcript).toFixed(2)}x the final transcript  (${written.means})`);
  }
}
