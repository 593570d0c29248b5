import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { Conditions } from '../conditions.js';
import { missed, PROGRAM, withDeadline } from '../program.js';
import { metricsUrlIn } from '../prometheus_text.js';

/** How much of the log's start is kept in memory to find the lines that say the program is up. */
const START_LOG_CHARS = 200_000;

/** The built program running as a bot under load, its log going to a file. */
export interface LoadProgram {
  /** Where its metrics are served (`…/metrics`). */
  readonly metricsUrl: string;
  readonly logFile: string;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`; resolves with its exit status. */
  stop(graceMs: number): Promise<number | null>;
}

/**
 * Starts `dist/main.js` with `--config configPath` in `cwd`, its log (stderr) appended to
 * `logFile`, and resolves once it is connected to Discord and serves its metrics.
 * @throws naming what it waited for and quoting the log's start, when that takes over `deadlineMs`.
 */
export async function startLoadProgram(configPath: string, cwd: string, logFile: string, deadlineMs: number): Promise<LoadProgram> {
  // HOLDFAST_BENCH_NODE_ARGS reach the bot's node alone, e.g. `--cpu-prof` to see where its time goes.
  const nodeArgs = (process.env['HOLDFAST_BENCH_NODE_ARGS'] ?? '').split(' ').filter((arg) => arg !== '');
  const child = spawn(process.execPath, [...nodeArgs, PROGRAM, '--config', configPath], { cwd, env: { PATH: process.env['PATH'] }, stdio: ['ignore', 'ignore', 'pipe'] });
  const log = createWriteStream(logFile);
  const changes = new Conditions();
  let start = '';
  child.stderr.on('data', (chunk: Buffer) => {
    log.write(chunk);
    if (start.length < START_LOG_CHARS) {
      start += chunk.toString('utf8');
      changes.changed();
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
  void exited.then(() => {
    start += '\n(exited)';
    changes.changed();
  });
  // Only whole lines are read: a chunk may end inside one.
  const lines = (): string => start.slice(0, start.lastIndexOf('\n') + 1);
  const up = (): boolean => lines().includes('connected to Discord') && metricsUrlIn(lines()) !== undefined;
  try {
    await withDeadline(
      changes.when(() => up() || start.endsWith('(exited)')),
      deadlineMs,
      () => missed('the bot to connect to Discord and serve metrics', deadlineMs, '', start),
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const metricsUrl = metricsUrlIn(lines());
  if (!up() || metricsUrl === undefined) throw missed('the bot to connect to Discord and serve metrics', deadlineMs, '', start);
  return {
    metricsUrl: `${metricsUrl}/metrics`,
    logFile,
    async stop(graceMs) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const status = await exited;
      clearTimeout(timer);
      await new Promise<void>((resolve) => log.end(resolve));
      return status;
    },
  };
}
