import { createInterface } from 'node:readline';
import { Writable, type Readable } from 'node:stream';
import type { IdFactory } from '../core/ids.js';
import type { InboundMessage, MessageNames } from '../conversation/transport.js';
import { BoundedLines } from './bounded_lines.js';
import { PROMPT, type ConsoleOutput, type ConsoleScreen } from './console_screen.js';

/** The console's one channel and one author. */
export const CONSOLE_CHANNEL = 'console';
export const CONSOLE_AUTHOR = 'console-user';

/** How the system prompt's `{server}`, `{channel}` and `{user}` name the console's place and author. */
const CONSOLE_NAMES: MessageNames = { server: 'console', channel: CONSOLE_CHANNEL, user: CONSOLE_AUTHOR };

/**
 * Message ids that never repeat across processes and restarts, whatever the wall clock says: one
 * new identity from `ids` for this run, then a counter, zero-padded so that one run's ids also
 * sort as text in the order the lines came.
 */
export function consoleMessageIds(ids: IdFactory): () => string {
  const run = ids.newId();
  let counter = 0;
  return () => `${run}-${String(++counter).padStart(9, '0')}`;
}

/**
 * Reads lines from `input` until it ends (or is destroyed), handing each non-empty one to
 * `submit` as a message from the console user in the console channel. A line longer than
 * `maxMessageChars` is not held whole: only enough of it goes on for the conversation to
 * reject it as too long.
 */
export function readConsoleLines(input: Readable, ids: IdFactory, maxMessageChars: number, submit: (message: InboundMessage) => void): Promise<void> {
  const hand = handOn(ids, submit);
  const lines = new BoundedLines(maxMessageChars + 1);
  return new Promise((resolve, reject) => {
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => hand(lines.push(chunk)));
    input.once('end', () => {
      hand(lines.end());
      resolve();
    });
    input.once('close', resolve);
    input.once('error', reject);
  });
}

/** A terminal the person types on: it can be put in raw mode, so that the console, not the terminal, echoes what is typed. */
export interface TerminalInput extends Readable {
  readonly isTTY: true;
  setRawMode(raw: boolean): unknown;
}

/** Whether `input` is a terminal the console can read in raw mode. */
export function isTerminalInput(input: Readable): input is TerminalInput {
  return (input as Partial<TerminalInput>).isTTY === true && typeof (input as Partial<TerminalInput>).setRawMode === 'function';
}

/** What reads a terminal: stopping it lets the terminal go back to how it was. */
export interface TerminalReading {
  readonly done: Promise<void>;
  stop(): void;
}

/**
 * Reads lines from a terminal in raw mode with readline, which echoes and edits what the person
 * types on the input line `screen` keeps below the conversation; each line ended with Enter is
 * handed on as {@link readConsoleLines} hands on a line, once `screen` was told it was typed.
 * Ctrl-D on an empty line ends the input, and Ctrl-C interrupts the program, as both do when the
 * terminal reads lines itself.
 */
export function readTerminalLines(
  input: TerminalInput,
  output: ConsoleOutput,
  screen: ConsoleScreen,
  ids: IdFactory,
  maxMessageChars: number,
  submit: (message: InboundMessage) => void,
): TerminalReading {
  const hand = handOn(ids, submit);
  const echo = Object.defineProperty(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        output.write(chunk.toString('utf8'));
        done();
      },
    }),
    'columns',
    { get: () => output.columns },
  );
  const lines = createInterface({ input, output: echo, prompt: PROMPT, terminal: true });
  screen.attach(lines);
  lines.on('line', (line: string) => {
    screen.typed(line);
    hand(new BoundedLines(maxMessageChars + 1).push(`${line}\n`));
  });
  lines.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
  const done = new Promise<void>((resolve) => lines.once('close', resolve));
  return { done, stop: () => lines.close() };
}

/** Hands each text on to `submit` as a message from the console user, with the next of this run's ids. */
function handOn(ids: IdFactory, submit: (message: InboundMessage) => void): (texts: readonly string[]) => void {
  const nextId = consoleMessageIds(ids);
  return (texts) => {
    for (const text of texts) submit({ source: 'console', channelId: CONSOLE_CHANNEL, authorId: CONSOLE_AUTHOR, authorRoleIds: [], messageId: nextId(), text, names: CONSOLE_NAMES });
  };
}
