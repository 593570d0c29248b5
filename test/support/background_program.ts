import { spawn } from 'node:child_process';
import { Conditions } from './conditions.js';
import { missed, PROGRAM, WAIT_DEADLINE_MS, withDeadline, type ProgramOptions } from './program.js';

/** The real program running in the background (as a bot on Discord runs), read through its log. */
export interface BackgroundProgram {
  readonly stderr: () => string;
  /** Resolves once the log (stderr) contains `text`, already or later; fails after the deadline. */
  logged(text: string): Promise<void>;
  kill(signal: NodeJS.Signals): void;
  /** The exit status, once the program exited; each read fails at its own deadline. */
  readonly exited: Promise<number | null>;
}

/** Starts the real program with `args`, its stdin closed, its log collected. */
export function startProgram(args: readonly string[], options: ProgramOptions): BackgroundProgram {
  const deadlineMs = options.deadlineMs ?? WAIT_DEADLINE_MS;
  const child = spawn(process.execPath, [PROGRAM, ...args], { cwd: options.cwd, env: options.env ?? { PATH: process.env['PATH'] }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const changes = new Conditions();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    changes.changed();
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
  const fail = (what: string) => () => missed(what, deadlineMs, stdout, stderr);
  return {
    stderr: () => stderr,
    logged: (text) =>
      withDeadline(
        changes.when(() => stderr.includes(text)),
        deadlineMs,
        fail(`a log line containing ${JSON.stringify(text)}`),
      ),
    kill: (signal) => void child.kill(signal),
    get exited() {
      return withDeadline(closed, deadlineMs, fail('the program to exit'));
    },
  };
}
