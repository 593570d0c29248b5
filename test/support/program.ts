import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { Conditions } from './conditions.js';

/** The built program, as `npm start` and the `holdfast` bin run it. */
export const PROGRAM = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/**
 * How long one wait on a child process may take by default: well under the timeouts of the tests
 * that wait (30 s and more), so a wait that never ends fails by naming what it waited for.
 */
export const WAIT_DEADLINE_MS = 20_000;

/** The most characters of each output a failed wait quotes: the end, where the news is. */
const QUOTED_CHARS = 4_000;

export interface ProgramRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Where a program runs and how long each wait on it may take. */
export interface ProgramOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  /** The deadline of each wait, in milliseconds (default {@link WAIT_DEADLINE_MS}). */
  readonly deadlineMs?: number;
  /** What {@link runProgram} types into the program's stdin before closing it (nothing by default). */
  readonly stdin?: string;
  /** The executable {@link runProgram} runs instead of `node dist/main.js`: an installed `holdfast`. */
  readonly command?: string;
}

/** The end of an output, for a failure message. */
function quoted(name: string, text: string): string {
  const shown = text.length > QUOTED_CHARS ? `…${text.slice(-QUOTED_CHARS)}` : text;
  return `${name} so far (${text.length} chars):\n${shown === '' ? '(nothing)' : shown}`;
}

/** The failure of a wait that ran out: what was awaited, for how long, and the output seen. */
export function missed(what: string, deadlineMs: number, stdout: string, stderr: string): Error {
  return new Error(`waited ${deadlineMs} ms for ${what}, in vain\n${quoted('stdout', stdout)}\n${quoted('stderr', stderr)}`);
}

/** `promise`, or a rejection by `fail()` once `deadlineMs` passed first. */
export function withDeadline<T>(promise: Promise<T>, deadlineMs: number, fail: () => Error, onMissed: () => void = () => undefined): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onMissed();
      reject(fail());
    }, deadlineMs);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Runs the real program as a child process and collects what it printed and how it exited. A
 * program still running at the deadline is killed, and the run fails with what it printed.
 */
export function runProgram(args: readonly string[], options: ProgramOptions): Promise<ProgramRun> {
  const deadlineMs = options.deadlineMs ?? WAIT_DEADLINE_MS;
  const [file, argv] = options.command === undefined ? [process.execPath, [PROGRAM, ...args]] : [options.command, [...args]];
  const child = spawn(file, argv, {
    cwd: options.cwd,
    env: options.env ?? { PATH: process.env['PATH'] },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(options.stdin ?? '');
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const run = new Promise<ProgramRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
  return withDeadline(
    run,
    deadlineMs,
    () => missed(`\`holdfast ${args.join(' ')}\` to exit`, deadlineMs, stdout, stderr),
    () => child.kill('SIGKILL'),
  );
}

/** A running program speaking JSON lines: what it printed so far and ways to talk to it. */
export interface JsonLinesProgram {
  /** The process id, as other processes see it. */
  readonly pid: number | undefined;
  readonly events: Record<string, unknown>[];
  readonly stderr: () => string;
  send(line: string): void;
  /**
   * Resolves with the first event (already seen or still to come) that matches; fails after
   * `deadlineMs` (default: the program's) naming `what` (default: the matcher's source) and
   * quoting the output so far.
   */
  waitFor(match: (event: Record<string, unknown>) => boolean, what?: string, deadlineMs?: number): Promise<Record<string, unknown>>;
  /** Resolves once the program's log (stderr) contains `text`, already or later; fails after the program's deadline. */
  logged(text: string): Promise<void>;
  endInput(): void;
  kill(signal: NodeJS.Signals): void;
  /** The exit status, once the program exited; each read fails at its own deadline. */
  readonly exited: Promise<number | null>;
}

/** Starts the real program with `--console --jsonl`, its stdin open for `send`. */
export function startJsonLinesProgram(args: readonly string[], options: ProgramOptions): JsonLinesProgram {
  const deadlineMs = options.deadlineMs ?? WAIT_DEADLINE_MS;
  const child = spawn(process.execPath, [PROGRAM, '--console', '--jsonl', ...args], {
    cwd: options.cwd,
    env: options.env ?? { PATH: process.env['PATH'] },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const events: Record<string, unknown>[] = [];
  const waiters: { match: (event: Record<string, unknown>) => boolean; resolve: (event: Record<string, unknown>) => void }[] = [];
  let stdout = '';
  let partial = '';
  let stderr = '';
  const logConditions = new Conditions();
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    logConditions.changed();
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
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
  const closed = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
  const fail =
    (what: string, ms = deadlineMs) =>
    () =>
      missed(what, ms, stdout, stderr);
  return {
    pid: child.pid,
    events,
    stderr: () => stderr,
    send: (line) => void child.stdin.write(`${line}\n`),
    waitFor: (match, what = `an event matching ${match.toString()}`, ms = deadlineMs) => {
      const seen = events.find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      const waiter = { match, resolve: (_: Record<string, unknown>): void => undefined };
      const event = new Promise<Record<string, unknown>>((resolve) => {
        waiter.resolve = resolve;
        waiters.push(waiter);
      });
      return withDeadline(event, ms, fail(what, ms), () => {
        if (waiters.includes(waiter)) waiters.splice(waiters.indexOf(waiter), 1);
      });
    },
    logged: (text) =>
      withDeadline(
        logConditions.when(() => stderr.includes(text)),
        deadlineMs,
        fail(`a log line containing ${JSON.stringify(text)}`),
      ),
    endInput: () => void child.stdin.end(),
    kill: (signal) => void child.kill(signal),
    get exited() {
      return withDeadline(closed, deadlineMs, fail('the program to exit'));
    },
  };
}

/** Whether a JSON-lines event is a final reply. */
export const isReply = (event: Record<string, unknown>): boolean => event['type'] === 'message' && event['kind'] === 'reply';

/** Whether a JSON-lines event is a notice of kind `notice`. */
export const isNotice =
  (notice: string) =>
  (event: Record<string, unknown>): boolean =>
    event['type'] === 'message' && event['notice'] === notice;

/**
 * For the tests of the calling `describe`: returns `track`, which hands back the program it is
 * given and kills it with SIGKILL after the test, if it still runs, waiting until it exited.
 */
export function useProgramsKilledAfterEach<P extends { kill(signal: NodeJS.Signals): void; readonly exited: Promise<unknown> } = JsonLinesProgram>(): (program: P) => P {
  const running: P[] = [];
  afterEach(async () => {
    for (const program of running.splice(0)) {
      program.kill('SIGKILL');
      await program.exited;
    }
  });
  return (program) => {
    running.push(program);
    return program;
  };
}

/**
 * Resolves once `program` reads its input: `ready` comes when it accepts input, which it reads
 * once it has caught up with what the last run left (only then is the console transport up for
 * `/readyz`). Asks `/status`, which is answered as soon as it is read.
 */
export async function whenReading(program: JsonLinesProgram): Promise<void> {
  await program.waitFor((event) => event['type'] === 'ready', 'the program to be ready');
  program.send('/status');
  await program.waitFor(isNotice('status'), 'the answer to /status, once the program reads its input');
}

/** Once `again`, restarted on the store of a killed program, is ready and has said the turn was interrupted: types `resume` into it. */
export async function resumeAfterRestart(again: JsonLinesProgram): Promise<JsonLinesProgram> {
  await again.waitFor((e) => e['type'] === 'ready', 'the restarted program to be ready');
  await again.waitFor(isNotice('interrupted'), 'the notice that the turn was interrupted, at the restart');
  again.send('resume');
  return again;
}
