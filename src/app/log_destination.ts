import { dirname, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ConsoleScreen, type ConsoleOutput } from '../console/console_screen.js';
import type { LogOutput } from '../core/logger.js';
import { createPrivateFile, makePrivateDirectory } from '../turn_state/private_files.js';
import type { AdapterChoice } from './adapter_choice.js';

/** Where the text console on a terminal writes its log, relative to the configuration file's folder (the current folder without a file). */
export const CONSOLE_LOG_FILE = 'data/holdfast.log';

/** Where the log lines go, the terminal the console shares with them, and how to let the file go at the end. */
export interface LogDestination {
  readonly outputs: readonly LogOutput[];
  /** For the text console on a terminal: the conversation and the log lines that still show there. */
  readonly screen?: ConsoleScreen;
  close(): void;
}

/** The one short line the terminal shows for the warnings and errors logged since the person last sent a line. */
export const LOGGED_POINTER = `-- [log] a warning or error was logged: see ${CONSOLE_LOG_FILE}\n`;

/**
 * Log lines go to stderr, except for the text console on a terminal, where they would break into
 * the conversation: there they go to {@link CONSOLE_LOG_FILE} only (created 0600 in a 0700
 * directory, like the store). The terminal is told once where the log is, and a warning or an
 * error shows there as {@link LOGGED_POINTER}, between lines of the conversation: once for the
 * first, then at most once more after each line the person sends, however many are logged.
 */
export function logDestination(
  choice: AdapterChoice,
  io: { readonly stdout: ConsoleOutput; readonly stderr: LogOutput['stream'] & { readonly isTTY?: boolean }; readonly cwd: string },
): LogDestination {
  const onTerminal = io.stderr.isTTY === true;
  if (choice.kind !== 'console' || choice.mode !== 'text' || !onTerminal) return { outputs: [{ stream: io.stderr, isTTY: onTerminal }], close: () => undefined };
  const path = resolve(io.cwd, CONSOLE_LOG_FILE);
  makePrivateDirectory(dirname(path));
  createPrivateFile(path);
  const file = pino.destination({ dest: path, append: true, sync: true });
  const screen = new ConsoleScreen(io.stdout, io.stderr);
  let pointed = false;
  screen.onTyped(() => (pointed = false));
  const pointer = new Writable({
    write(_chunk: Buffer, _encoding, done) {
      if (!pointed) screen.aside(LOGGED_POINTER);
      pointed = true;
      done();
    },
  });
  screen.aside(`holdfast: the log is in ${CONSOLE_LOG_FILE}; a warning or error logged shows one line here pointing at it\n`);
  return {
    outputs: [
      { stream: file, isTTY: false },
      { stream: pointer, isTTY: false, minLevel: 'warn' },
    ],
    screen,
    close: () => file.end(),
  };
}
