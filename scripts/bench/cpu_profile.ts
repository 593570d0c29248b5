import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/**
 * Where a program's CPU went: reads a `.cpuprofile` that `node --cpu-prof` wrote (for the bot under
 * load, `HOLDFAST_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" npm run bench:load …`) and prints
 * the functions with the most self time, then the same time summed by where the code comes from
 * (Holdfast's own chunks, each package, Node's internals, V8's collector). `npm run bench:profile --
 * FILE [--top N]`.
 */

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime: number;
  readonly endTime: number;
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '10' } } });
const top = Number(values.top);
if (positionals.length !== 1 || !Number.isInteger(top) || top < 1) {
  console.error('usage: npm run bench:profile -- FILE.cpuprofile [--top N]');
  process.exit(2);
}

const profile = JSON.parse(readFileSync(positionals[0] as string, 'utf8')) as CpuProfile;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
const totalUs = [...selfUs.values()].reduce((sum, us) => sum + us, 0);

/** A function by name and place, so that its nodes under different callers add up. */
function frameKey(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName === '' ? '(anonymous)' : functionName} ${shortUrl(url)}${url === '' ? '' : `:${lineNumber + 1}`}`;
}

/** The path from `node_modules/` on, or from `dist/` on, or Node's own name for its modules. */
function shortUrl(url: string): string {
  const packageAt = url.lastIndexOf('node_modules/');
  if (packageAt >= 0) return url.slice(packageAt + 'node_modules/'.length);
  const distAt = url.lastIndexOf('/dist/');
  if (distAt >= 0) return url.slice(distAt + 1);
  return url;
}

/** Who the code belongs to: a package, Holdfast's bundle, Node, or V8 itself. */
function origin(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const packageAt = url.lastIndexOf('node_modules/');
  if (packageAt >= 0) {
    const parts = url.slice(packageAt + 'node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') === true ? `${parts[0]}/${parts[1]}` : (parts[0] ?? url);
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  if (url.includes('/dist/')) return 'holdfast (dist)';
  return url;
}

function summed(keyOf: (node: ProfileNode) => string): [string, number][] {
  const totals = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = nodes.get(id);
    if (node === undefined) continue;
    const key = keyOf(node);
    totals.set(key, (totals.get(key) ?? 0) + us);
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}

function table(title: string, rows: [string, number][]): string {
  const lines = rows.slice(0, top).map(([key, us], rank) => `| ${rank + 1} | \`${key}\` | ${(us / 1000).toFixed(0)} | ${((us / totalUs) * 100).toFixed(1)} |`);
  return [`| # | ${title} | self ms | % of samples |`, '| --- | --- | --- | --- |', ...lines].join('\n');
}

console.log(`${positionals[0]}: ${(totalUs / 1e6).toFixed(1)} s sampled over ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s\n`);
console.log(`${table('function', summed(frameKey))}\n`);
console.log(table('code', summed(origin)));
