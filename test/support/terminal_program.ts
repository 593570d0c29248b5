import { spawn } from 'node:child_process';
import { Conditions } from './conditions.js';
import { TerminalScreen } from './fake_terminal.js';
import { missed, PROGRAM, WAIT_DEADLINE_MS, withDeadline, type ProgramOptions } from './program.js';

/** The real program on a pseudo-terminal, as a person runs it in one: keys go in, and the screen shows what it drew. */
export interface TerminalProgram {
  readonly screen: TerminalScreen;
  /** Everything the terminal received, control sequences included. */
  readonly output: () => string;
  /** Types `keys` (Enter is `\r`, Ctrl-D `\u0004`). */
  keys(keys: string): void;
  /** Resolves once the screen shows what `done` looks for; fails after the deadline naming `what`. */
  shows(done: (lines: string[]) => boolean, what: string): Promise<void>;
  kill(signal: NodeJS.Signals): void;
  /** The exit status, once the program exited. */
  readonly exited: Promise<number | null>;
}

const quote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * Starts the real program with `args` on a pseudo-terminal `columns` wide, made by util-linux
 * `script` (stdin, stdout and stderr all on it), drawing what it writes on a {@link TerminalScreen}.
 */
export function startOnTerminal(args: readonly string[], options: ProgramOptions & { readonly columns?: number }): TerminalProgram {
  const deadlineMs = options.deadlineMs ?? WAIT_DEADLINE_MS;
  const columns = options.columns ?? 80;
  const command = `stty cols ${columns} rows 50; exec ${[process.execPath, PROGRAM, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: options.cwd, env: options.env ?? { PATH: process.env['PATH'] }, stdio: ['pipe', 'pipe', 'pipe'] });
  const screen = new TerminalScreen(columns);
  const changes = new Conditions();
  let output = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    screen.write(chunk);
    changes.changed();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
  const fail = (what: string) => () => missed(what, deadlineMs, `${output}\n(on screen:)\n${screen.lines().join('\n')}`, stderr);
  return {
    screen,
    output: () => output,
    keys: (keys) => void child.stdin.write(keys),
    shows: (done, what) =>
      withDeadline(
        changes.when(() => done(screen.lines())),
        deadlineMs,
        fail(what),
      ),
    kill: (signal) => void child.kill(signal),
    get exited() {
      return withDeadline(closed, deadlineMs, fail('the program to exit'));
    },
  };
}
