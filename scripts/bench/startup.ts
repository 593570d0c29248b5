import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { table } from './load_report.js';

/**
 * What starting Holdfast costs: the CPU (user + system) and wall time of `node -e 0`,
 * `holdfast --version`, `holdfast --help`, `holdfast doctor` against a SQLite store that exists,
 * and the bot in the console on SQLite until it says it is ready. Each case runs `--runs` times;
 * the table gives the medians and, beside the CPU, what it costs beyond `node -e 0`. A second
 * table gives the memory of the bot (VmRSS and VmHWM of `/proc/<pid>/status`) when it is ready and
 * again once it has sat idle `--idle-seconds`, beside a `node -e` that only waits, read at the
 * same moments. `--program` measures another build of `dist/main.js` (a checkout of the commit
 * before a change). The CPU and the memory come from the kernel's accounting (`/proc`): Linux only.
 */
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '7' }, 'idle-seconds': { type: 'string', default: '5' }, program: { type: 'string', default: 'dist/main.js' } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs is a whole number of at least 1, not "${values.runs}"`);
const idleMs = Number(values['idle-seconds']) * 1000;
if (!(idleMs >= 0)) throw new Error(`--idle-seconds is a number of seconds, not "${values['idle-seconds']}"`);
const program = resolve(values.program);

/** The kernel counts CPU time in ticks of 1/USER_HZ s, which is 100 on every Linux architecture Node runs on. */
const TICKS_PER_SECOND = 100;
/** How long the bot may take to say it is ready before the run is abandoned. */
const READY_DEADLINE_MS = 60_000;

interface Sample {
  readonly cpuSeconds: number;
  readonly wallSeconds: number;
}

/** A process's resident memory (`VmRSS`) and its peak so far (`VmHWM`), in bytes. */
interface Memory {
  readonly rss: number;
  readonly hwm: number;
}

/** What a process that stays up gave: its start up to ready, and its memory then and after sitting idle. */
interface WaitingSample extends Sample {
  readonly ready: Memory;
  readonly idle: Memory;
}

/** The fields of `/proc/<pid>/stat` after the command's name: the 14th field of the file is `[11]`. */
function statFields(pid: number | 'self'): string[] {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** CPU seconds (user + system) of `pid` so far, or with `children` of the processes this one has waited for. */
function cpuSeconds(pid: number | 'self', children: boolean): number {
  const fields = statFields(pid);
  const [user, system] = children ? [fields[13], fields[14]] : [fields[11], fields[12]];
  return (Number(user) + Number(system)) / TICKS_PER_SECOND;
}

/** `pid`'s memory now, from `/proc/<pid>/status`. */
function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

/** One run of a command that exits by itself: its CPU is what the processes this one waited for gained meanwhile. */
function exitingRun(args: readonly string[], cwd: string): Sample {
  const cpuBefore = cpuSeconds('self', true);
  const began = performance.now();
  const run = spawnSync(process.execPath, args, { cwd, env: { PATH: process.env['PATH'] }, stdio: ['ignore', 'pipe', 'pipe'] });
  const wallSeconds = (performance.now() - began) / 1000;
  if (run.error !== undefined) throw run.error;
  // doctor says 1 when something needs attention; anything else is a broken run.
  if (run.status !== 0 && !(args.includes('doctor') && run.status === 1)) throw new Error(`node ${args.join(' ')} exited ${run.status}: ${run.stderr.toString()}`);
  return { cpuSeconds: cpuSeconds('self', true) - cpuBefore, wallSeconds };
}

/**
 * One start of a process that stays up, measured up to the first line of its stdout that `isReady`
 * accepts; its memory is read then and again after {@link idleMs} without input, then it is
 * stopped with SIGTERM.
 */
function waitingRun(args: readonly string[], cwd: string, isReady: (line: string) => boolean): Promise<WaitingSample> {
  const began = performance.now();
  const child = spawn(process.execPath, args, { cwd, env: { PATH: process.env['PATH'] }, stdio: ['pipe', 'pipe', 'pipe'] });
  const { pid } = child;
  if (pid === undefined) throw new Error(`node ${args.join(' ')} did not start`);
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((done) => child.on('close', () => done()));
  return new Promise<WaitingSample>((done, fail) => {
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`node ${args.join(' ')} was not ready within ${READY_DEADLINE_MS} ms:\n${stdout}\n${stderr}`));
    }, READY_DEADLINE_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (!stdout.split('\n').some(isReady)) return;
      child.stdout.removeAllListeners('data');
      const started = { cpuSeconds: cpuSeconds(pid, false), wallSeconds: (performance.now() - began) / 1000 };
      const ready = memoryOf(pid);
      clearTimeout(deadline);
      setTimeout(() => {
        const idle = memoryOf(pid);
        child.kill('SIGTERM');
        void exited.then(() => done({ ...started, ready, idle }));
      }, idleMs);
    });
  });
}

/** The bot in the console speaking JSON lines, ready at its `ready` event. */
const botRun = (config: string, cwd: string): Promise<WaitingSample> =>
  waitingRun([program, '--console', '--jsonl', '--config', config], cwd, (line) => line.startsWith('{') && (JSON.parse(line) as { type?: string }).type === 'ready');

/** A bare `node` that says it is ready at once and then only waits. */
const waitingNodeRun = (cwd: string): Promise<WaitingSample> => waitingRun(['-e', "console.log('ready'); setInterval(() => {}, 60_000)"], cwd, (line) => line === 'ready');

const median = (numbers: readonly number[]): number => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-bench-startup-'));
  const config = join(dir, 'config.yml');
  // A model that is never called: nothing contacts it at start, and doctor finds it configured.
  writeFileSync(config, 'logging:\n  level: warn\nllm:\n  provider: openai\n  base_url: http://127.0.0.1:9/v1\n  model: bench-model\n  api_key: bench\n');
  console.log(`startup of ${program}, ${runs} runs each (medians); ${cpus().length} cores, node ${process.version}, load average ${loadavg()[0]?.toFixed(1)}`);
  try {
    // The first start creates the store that doctor and the later starts find.
    await botRun(config, dir);
    const cases: { name: string; run: () => Sample | Promise<Sample> }[] = [
      { name: 'node -e 0', run: () => exitingRun(['-e', '0'], dir) },
      { name: 'holdfast --version', run: () => exitingRun([program, '--version'], dir) },
      { name: 'holdfast --help', run: () => exitingRun([program, '--help'], dir) },
      { name: 'holdfast doctor (SQLite)', run: () => exitingRun([program, 'doctor', '--config', config], dir) },
      { name: 'bot until ready (console, SQLite)', run: () => botRun(config, dir) },
      { name: 'node -e that waits', run: () => waitingNodeRun(dir) },
    ];
    const samples = new Map<string, Sample[]>(cases.map(({ name }) => [name, []]));
    // Round by round, so that a busy moment of the machine falls on every case alike.
    for (let round = 0; round < runs; round++) for (const { name, run } of cases) samples.get(name)?.push(await run());
    const timed = cases.filter(({ name }) => name !== 'node -e that waits');
    const bare = median((samples.get('node -e 0') ?? []).map((sample) => sample.cpuSeconds));
    const rows = timed.map(({ name }) => {
      const taken = samples.get(name) ?? [];
      const cpu = median(taken.map((sample) => sample.cpuSeconds));
      return [name, cpu.toFixed(2), name === 'node -e 0' ? '–' : (cpu - bare).toFixed(2), median(taken.map((sample) => sample.wallSeconds)).toFixed(2)];
    });
    console.log(`\n${table(['command', 'CPU s', 'CPU s beyond node -e 0', 'wall s'], rows)}\n`);
    const waited = (name: string): WaitingSample[] => (samples.get(name) ?? []).filter((sample): sample is WaitingSample => 'idle' in sample);
    const mib = (taken: readonly WaitingSample[], read: (sample: WaitingSample) => Memory): number => median(taken.map((sample) => read(sample).rss)) / 1024 / 1024;
    const idleRss = (taken: readonly WaitingSample[]): number => mib(taken, (sample) => sample.idle);
    const baseline = waited('node -e that waits');
    const memoryRows = ['node -e that waits', 'bot until ready (console, SQLite)'].map((name) => {
      const taken = waited(name);
      const peak = median(taken.map((sample) => sample.idle.hwm)) / 1024 / 1024;
      return [name, mib(taken, (sample) => sample.ready).toFixed(1), idleRss(taken).toFixed(1), peak.toFixed(1), taken === baseline ? '–' : (idleRss(taken) - idleRss(baseline)).toFixed(1)];
    });
    const idle = `after ${idleMs / 1000} s idle`;
    console.log(`${table(['process', 'RSS MiB at ready', `RSS MiB ${idle}`, 'peak RSS MiB (VmHWM)', `RSS MiB ${idle} beyond node`], memoryRows)}\n`);
    console.log(`load average at the end ${loadavg()[0]?.toFixed(1)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
