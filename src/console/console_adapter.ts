import type { Readable } from 'node:stream';
import type { Clock } from '../core/clock.js';
import type { InboundMessage } from '../conversation/transport.js';
import { BoundedLines } from './bounded_lines.js';

/** The console's one channel and one author. */
export const CONSOLE_CHANNEL = 'console';
export const CONSOLE_AUTHOR = 'console-user';

/**
 * Message ids that increase and never repeat across restarts: the wall time in milliseconds,
 * zero-padded so they also sort as text, and a counter for lines within one millisecond.
 */
export function consoleMessageIds(clock: Clock): () => string {
  let last = 0;
  let counter = 0;
  return () => {
    const now = Math.max(clock.now(), last);
    counter = now === last ? counter + 1 : 0;
    last = now;
    return `${String(now).padStart(15, '0')}-${String(counter).padStart(4, '0')}`;
  };
}

/**
 * Reads lines from `input` until it ends (or is destroyed), handing each non-empty one to
 * `submit` as a message from the console user in the console channel. A line longer than
 * `maxMessageChars` is not held whole: only enough of it goes on for the conversation to
 * reject it as too long.
 */
export function readConsoleLines(input: Readable, clock: Clock, maxMessageChars: number, submit: (message: InboundMessage) => void): Promise<void> {
  const nextId = consoleMessageIds(clock);
  const lines = new BoundedLines(maxMessageChars + 1);
  const hand = (texts: readonly string[]): void => {
    for (const text of texts) submit({ source: 'console', channelId: CONSOLE_CHANNEL, authorId: CONSOLE_AUTHOR, authorRoleIds: [], messageId: nextId(), text });
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
