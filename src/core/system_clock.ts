import { abortReason, type Clock } from './clock.js';

/** The real clock: `Date.now()` for wall time, `performance.now()` for monotonic time. */
export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }

  monotonicNow(): number {
    return performance.now();
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(abortReason(signal));
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal));
      };
      const timer = setTimeout(
        () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
