import type { Clock } from '../core/clock.js';

/**
 * Fires once when no progress has been reported for `limitMs` of monotonic time. The limit can
 * change between phases of a request (waiting for headers, then for each chunk of the body). It
 * waits on its owner's `signal`, and stops for good when that aborts; it makes no signal of its own.
 */
export class StallWatchdog {
  readonly #clock: Clock;
  readonly #signal: AbortSignal;
  #limitMs: number;
  #lastProgress: number;
  #onStall: () => void;
  /** When the current wait ends (monotonic). */
  #wakeAt = Number.POSITIVE_INFINITY;
  /** Which wait is the current one: a wait that wakes to find another started after it ends quietly. */
  #round = 0;

  constructor(clock: Clock, limitMs: number, onStall: () => void, signal: AbortSignal) {
    this.#clock = clock;
    this.#signal = signal;
    this.#limitMs = limitMs;
    this.#onStall = onStall;
    this.#lastProgress = clock.monotonicNow();
    void this.#watch(this.#round);
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
    // Only a limit that now runs out before the current wait ends needs a wait of its own.
    if (this.#lastProgress + limitMs < this.#wakeAt) void this.#watch(++this.#round);
  }

  async #watch(round: number): Promise<void> {
    while (round === this.#round && !this.#signal.aborted) {
      const due = this.#lastProgress + this.#limitMs;
      const wait = due - this.#clock.monotonicNow();
      if (wait <= 0) {
        this.#onStall();
        return;
      }
      this.#wakeAt = due;
      try {
        await this.#clock.sleep(wait, this.#signal);
      } catch {
        return;
      }
    }
  }
}
