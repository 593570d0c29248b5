import type { Clock } from './clock.js';

/** When a {@link repeatUntilAborted} loop starts and how long it may go on. */
export interface RepeatOptions {
  /** Do the work once before the first wait; by default the loop waits first. */
  readonly workFirst?: boolean;
  /** Stop once this many milliseconds have passed on the monotonic clock since the loop began. */
  readonly forMs?: number;
}

/**
 * Does `work` every `intervalMs` on `clock` until `signal` aborts (or `forMs` has passed), and
 * resolves then; the wait in between ends at once when `signal` aborts. Each round waits for
 * `work` to settle before the next wait begins. A `work` that throws ends the loop with its error:
 * a caller that wants to go on after a failure catches inside `work`.
 */
export async function repeatUntilAborted(clock: Clock, intervalMs: number, signal: AbortSignal, work: () => unknown, options: RepeatOptions = {}): Promise<void> {
  const until = options.forMs === undefined ? Number.POSITIVE_INFINITY : clock.monotonicNow() + options.forMs;
  let workNow = options.workFirst ?? false;
  for (;;) {
    if (signal.aborted || clock.monotonicNow() >= until) return;
    if (workNow) await work();
    workNow = true;
    try {
      await clock.sleep(intervalMs, signal);
    } catch {
      return;
    }
  }
}
