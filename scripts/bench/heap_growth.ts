import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/**
 * What a program kept between two moments: reads two `.heapsnapshot` files of the same program
 * (for the bot, `HOLDFAST_BENCH_NODE_ARGS="--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=DIR"
 * npm run bench:load …`, signalled at rest after a short run and after a longer one) and prints the
 * live heap of each, then the kinds of object whose count or size grew most from the first to the
 * second. A snapshot is taken after a full collection, so both hold only what is reachable.
 * `npm run bench:heap -- BEFORE.heapsnapshot AFTER.heapsnapshot [--top N]`.
 */

interface HeapSnapshot {
  readonly snapshot: { readonly meta: { readonly node_fields: readonly string[]; readonly node_types: readonly [readonly string[], ...unknown[]] } };
  readonly nodes: readonly number[];
  readonly strings: readonly string[];
}

/** Objects of one kind: how many, and the bytes they hold themselves. */
interface Kind {
  count: number;
  bytes: number;
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '15' } } });
const top = Number(values.top);
if (positionals.length !== 2 || !Number.isInteger(top) || top < 1) {
  console.error('usage: npm run bench:heap -- BEFORE.heapsnapshot AFTER.heapsnapshot [--top N]');
  process.exit(2);
}

/** Node types whose name tells the kind (a constructor, a function, V8's own record such as `system / WeakCell`, a finalization registry's entry); the others are summed by type. */
const NAMED = new Set(['object', 'closure', 'native', 'hidden']);

/** The objects of a snapshot by kind: its node type and, for objects and closures, its constructor's or function's name. */
function kindsOf(path: string): Map<string, Kind> {
  const heap = JSON.parse(readFileSync(path, 'utf8')) as HeapSnapshot;
  const fields = heap.snapshot.meta.node_fields;
  const types = heap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field));
  if (typeAt === undefined || nameAt === undefined || sizeAt === undefined || [typeAt, nameAt, sizeAt].includes(-1)) throw new Error(`${path} is not a V8 heap snapshot`);
  const kinds = new Map<string, Kind>();
  for (let at = 0; at < heap.nodes.length; at += width) {
    const type = types[heap.nodes[at + typeAt] ?? 0] ?? '?';
    const name = heap.strings[heap.nodes[at + nameAt] ?? 0] ?? '?';
    const key = NAMED.has(type) ? `${type} ${name.slice(0, 60)}` : `(${type})`;
    const kind = kinds.get(key) ?? { count: 0, bytes: 0 };
    kind.count += 1;
    kind.bytes += heap.nodes[at + sizeAt] ?? 0;
    kinds.set(key, kind);
  }
  return kinds;
}

const total = (kinds: Map<string, Kind>): Kind => [...kinds.values()].reduce((sum, kind) => ({ count: sum.count + kind.count, bytes: sum.bytes + kind.bytes }), { count: 0, bytes: 0 });
const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

const [beforePath, afterPath] = positionals as [string, string];
const before = kindsOf(beforePath);
const after = kindsOf(afterPath);
const [sumBefore, sumAfter] = [total(before), total(after)];
console.log(`live heap: ${mib(sumBefore.bytes)} MiB in ${sumBefore.count} objects, then ${mib(sumAfter.bytes)} MiB in ${sumAfter.count}`);

const grown = [...new Set([...before.keys(), ...after.keys()])].map((key) => {
  const [was, is] = [before.get(key) ?? { count: 0, bytes: 0 }, after.get(key) ?? { count: 0, bytes: 0 }];
  return { key, was, is, count: is.count - was.count, bytes: is.bytes - was.bytes };
});
for (const [what, by] of [
  ['count', (row: (typeof grown)[number]) => row.count],
  ['bytes', (row: (typeof grown)[number]) => row.bytes],
] as const) {
  console.log(`\nthe ${top} kinds whose ${what} grew most`);
  console.log(`${'kind'.padEnd(72)} ${'count'.padStart(17)} ${'KiB'.padStart(19)}`);
  for (const row of [...grown].sort((a, b) => by(b) - by(a)).slice(0, top)) {
    const counts = `${row.was.count} → ${row.is.count}`;
    const sizes = `${(row.was.bytes / 1024).toFixed(0)} → ${(row.is.bytes / 1024).toFixed(0)}`;
    console.log(`${row.key.padEnd(72)} ${counts.padStart(17)} ${sizes.padStart(19)}`);
  }
}
