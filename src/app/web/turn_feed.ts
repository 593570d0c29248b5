/**
 * The turns list's live updates (DESIGN §10.2), as server-sent events: the list is read again every
 * {@link FEED_INTERVAL_MS} and its rows are sent as a `turns` event whenever they changed — so a turn
 * started, saved, resumed or ended by any process sharing the store shows within a second or so.
 */
import type { Clock } from '../../core/clock.js';

/** How often a live list is read again. */
const FEED_INTERVAL_MS = 1_000;

/** How many quiet reads pass before a comment keeps the connection (and any proxy on it) open. */
const QUIET_READS = 15;

/** Where a feed writes its events. */
export interface EventSink {
  write(chunk: string): unknown;
}

/**
 * Sends `rows()` as a `turns` event at once and again each time it changes, until `signal` aborts
 * (the browser went away, or the console closes). A read that fails after the abort ends the feed
 * quietly; one that fails before it is thrown.
 */
export async function feedTurns(sink: EventSink, rows: () => Promise<string>, clock: Clock, signal: AbortSignal): Promise<void> {
  sink.write(`retry: 3000\n\n`);
  let last: string | undefined;
  let quiet = 0;
  while (!signal.aborted) {
    let current: string;
    try {
      current = await rows();
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
    if (current !== last) {
      sink.write(
        `event: turns\n${current
          .split('\n')
          .map((line) => `data: ${line}\n`)
          .join('')}\n`,
      );
      last = current;
      quiet = 0;
    } else if (++quiet >= QUIET_READS) {
      sink.write(': still here\n\n');
      quiet = 0;
    }
    await clock.sleep(FEED_INTERVAL_MS, signal).catch(() => undefined);
  }
}
