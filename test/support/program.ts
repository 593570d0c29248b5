import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built program, as `npm start` and the `holdfast` bin run it. */
export const PROGRAM = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface ProgramRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real program as a child process and collects what it printed and how it exited. */
export function runProgram(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<ProgramRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PROGRAM, ...args], {
      cwd: options.cwd,
      env: options.env ?? { PATH: process.env['PATH'] },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** A running program speaking JSON lines: what it printed so far and ways to talk to it. */
export interface JsonLinesProgram {
  readonly events: Record<string, unknown>[];
  readonly stderr: () => string;
  send(line: string): void;
  /** Resolves with the first event (already seen or still to come) that matches. */
  waitFor(match: (event: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  endInput(): void;
  kill(signal: NodeJS.Signals): void;
  readonly exited: Promise<number | null>;
}

/** Starts the real program with `--console --jsonl`, its stdin open for `send`. */
export function startJsonLinesProgram(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): JsonLinesProgram {
  const child = spawn(process.execPath, [PROGRAM, '--console', '--jsonl', ...args], {
    cwd: options.cwd,
    env: options.env ?? { PATH: process.env['PATH'] },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const events: Record<string, unknown>[] = [];
  const waiters: { match: (event: Record<string, unknown>) => boolean; resolve: (event: Record<string, unknown>) => void }[] = [];
  let partial = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const event = JSON.parse(line) as Record<string, unknown>;
      events.push(event);
      for (const waiter of waiters.filter((w) => w.match(event))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
  return {
    events,
    stderr: () => stderr,
    send: (line) => void child.stdin.write(`${line}\n`),
    waitFor: (match) => {
      const seen = events.find(match);
      return seen !== undefined ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
    endInput: () => void child.stdin.end(),
    kill: (signal) => void child.kill(signal),
    exited,
  };
}
