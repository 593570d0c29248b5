import type { Clock } from '../core/clock.js';

/**
 * Fires once when no progress has been reported for `limitMs` of monotonic time. The limit can
 * change between phases of a request (waiting for headers, then for each chunk of the body).
 */
export class StallWatchdog {
  readonly #clock: Clock;
  readonly #stopped = new AbortController();
  /** Aborted to cut the current wait short when a new phase shortens the limit. */
  #nap = new AbortController();
  #limitMs: number;
  #lastProgress: number;
  #onStall: () => void;

  constructor(clock: Clock, limitMs: number, onStall: () => void) {
    this.#clock = clock;
    this.#limitMs = limitMs;
    this.#onStall = onStall;
    this.#lastProgress = clock.monotonicNow();
    void this.#watch();
  }

  /** Something arrived: the quiet period starts again. */
  progress(): void {
    this.#lastProgress = this.#clock.monotonicNow();
  }

  /** Starts a new phase with its own limit and its own action when it stalls. */
  rearm(limitMs: number, onStall: () => void): void {
    this.#limitMs = limitMs;
    this.#onStall = onStall;
    this.progress();
    this.#nap.abort();
  }

  stop(): void {
    this.#stopped.abort();
    this.#nap.abort();
  }

  async #watch(): Promise<void> {
    const signal = this.#stopped.signal;
    while (!signal.aborted) {
      const wait = this.#lastProgress + this.#limitMs - this.#clock.monotonicNow();
      if (wait <= 0) {
        this.#onStall();
        return;
      }
      this.#nap = new AbortController();
      try {
        await this.#clock.sleep(wait, this.#nap.signal);
      } catch {
        // Woken early: stopped (the loop ends) or re-armed (the wait is measured again).
      }
    }
  }
}
