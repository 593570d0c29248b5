import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Clock } from '../core/clock.js';
import type { InboundMessage } from '../conversation/transport.js';

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
 * Reads lines from `input` until it ends, handing each non-empty one to `submit` as a message
 * from the console user in the console channel.
 */
export async function readConsoleLines(input: Readable, clock: Clock, submit: (message: InboundMessage) => void): Promise<void> {
  const nextId = consoleMessageIds(clock);
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    const text = line.trim();
    if (text === '') continue;
    submit({ source: 'console', channelId: CONSOLE_CHANNEL, authorId: CONSOLE_AUTHOR, authorRoleIds: [], messageId: nextId(), text });
  }
}
