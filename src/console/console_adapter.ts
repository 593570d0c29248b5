import type { Readable } from 'node:stream';
import type { IdFactory } from '../core/ids.js';
import type { InboundMessage, MessageNames } from '../conversation/transport.js';
import { BoundedLines } from './bounded_lines.js';

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
  const nextId = consoleMessageIds(ids);
  const lines = new BoundedLines(maxMessageChars + 1);
  const hand = (texts: readonly string[]): void => {
    for (const text of texts) submit({ source: 'console', channelId: CONSOLE_CHANNEL, authorId: CONSOLE_AUTHOR, authorRoleIds: [], messageId: nextId(), text, names: CONSOLE_NAMES });
  };
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
