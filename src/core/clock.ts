/**
 * The source of time for everything below `src/main.ts` (DESIGN §3). Wall time is for
 * timestamps that are stored or shown; monotonic time is for measuring durations and deadlines,
 * because the wall clock can jump.
 */
export interface Clock {
  /** Wall-clock time in milliseconds since the Unix epoch (UTC). */
  now(): number;
  /** Milliseconds on a clock that never goes backwards; only differences are meaningful. */
  monotonicNow(): number;
  /**
   * Resolves after `ms` milliseconds; a zero or negative `ms` resolves without waiting.
   * Rejects with {@link abortReason} as soon as `signal` aborts, and at once if it already has.
   */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/**
 * What a wait rejects with when its signal aborts: the signal's reason when that is an error
 * (as it is for `AbortController.abort()` and `AbortSignal.timeout()`), else an `AbortError`.
 */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}
