import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { IdFactory } from '../core/ids.js';
import type { InboundMessage } from '../conversation/transport.js';

/** The console's one channel and one author. */
export const CONSOLE_CHANNEL = 'console';
export const CONSOLE_AUTHOR = 'console-user';

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
 * Reads lines from `input` until it ends, handing each non-empty one to `submit` as a message
 * from the console user in the console channel.
 */
export async function readConsoleLines(input: Readable, ids: IdFactory, submit: (message: InboundMessage) => void): Promise<void> {
  const nextId = consoleMessageIds(ids);
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    const text = line.trim();
    if (text === '') continue;
    submit({ source: 'console', channelId: CONSOLE_CHANNEL, authorId: CONSOLE_AUTHOR, authorRoleIds: [], messageId: nextId(), text });
  }
}
