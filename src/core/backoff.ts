import { assertNever } from './assert_never.js';
import type { Random } from './random.js';

/**
 * How the waits between attempts grow: retry `n` (0 for the wait after the first failure) may
 * wait up to `min(capMs, initialMs × factorⁿ)`. With `full` jitter the wait is drawn uniformly
 * below that ceiling, so callers failing together spread out; with `none` it is the ceiling.
 */
export interface BackoffSchedule {
  readonly initialMs: number;
  readonly factor: number;
  readonly capMs: number;
  readonly jitter: 'none' | 'full';
  /**
   * How long after the first attempt a retry may still start; a wait that would end later is
   * not taken. No limit when absent.
   */
  readonly deadlineMs?: number;
}

/** The most retry `retry` (counted from 0) may wait: the exponential ceiling, capped. */
export function backoffCeiling(schedule: BackoffSchedule, retry: number): number {
  return Math.min(schedule.capMs, schedule.initialMs * schedule.factor ** Math.max(0, retry));
}

/**
 * The wait before retry `retry` (counted from 0). `random` draws the jitter; a schedule with
 * `full` jitter needs one.
 */
export function backoffDelay(schedule: BackoffSchedule, retry: number, random?: Random): number {
  const ceiling = backoffCeiling(schedule, retry);
  switch (schedule.jitter) {
    case 'none':
      return ceiling;
    case 'full':
      if (random === undefined) throw new TypeError('a backoff schedule with full jitter needs a source of randomness');
      return Math.floor(random.next() * ceiling);
    default:
      return assertNever(schedule.jitter);
  }
}

/**
 * The wait before retry `retry` when `elapsedMs` have passed since the first attempt, or
 * `undefined` when that wait would end past the schedule's deadline: time to give up.
 */
export function nextBackoff(schedule: BackoffSchedule, retry: number, elapsedMs: number, random?: Random): number | undefined {
  const wait = backoffDelay(schedule, retry, random);
  return schedule.deadlineMs !== undefined && elapsedMs + wait > schedule.deadlineMs ? undefined : wait;
}
