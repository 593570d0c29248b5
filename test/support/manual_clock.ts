import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { abortReason, type Clock } from '../../src/core/clock.js';

interface Sleeper {
  readonly wakeAt: number;
  readonly seq: number;
  readonly resolve: () => void;
  readonly detach: () => void;
}

interface SleepWaiter {
  readonly count: number;
  readonly resolve: () => void;
}

/** Where a {@link ManualClock} starts: wall time in epoch milliseconds, monotonic in ms. */
export interface ManualClockStart {
  readonly wallStart?: number;
  readonly monotonicStart?: number;
}

/**
 * A clock for tests that moves only when told. `advance` wakes the sleepers that fall due in
 * deadline order, letting each one's continuation run before the next wakes, so a loop that
 * sleeps again inside the advanced window is woken again at the right instant.
 */
export class ManualClock implements Clock {
  #wall: number;
  #monotonic: number;
  #seq = 0;
  #sleepers: Sleeper[] = [];
  #waiters: SleepWaiter[] = [];

  constructor(start: ManualClockStart = {}) {
    this.#wall = start.wallStart ?? Date.UTC(2026, 0, 1);
    this.#monotonic = start.monotonicStart ?? 0;
  }

  now(): number {
    return this.#wall;
  }

  monotonicNow(): number {
    return this.#monotonic;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(abortReason(signal));
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
        reject(abortReason(signal));
      };
      const sleeper: Sleeper = {
        wakeAt: this.#monotonic + ms,
        seq: this.#seq++,
        resolve,
        detach: () => signal.removeEventListener('abort', onAbort),
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#sleepers.push(sleeper);
      this.#sleepers.sort((a, b) => a.wakeAt - b.wakeAt || a.seq - b.seq);
      this.#notifyWaiters();
    });
  }

  /** How many sleeps are waiting for time to pass. */
  get pendingSleeps(): number {
    return this.#sleepers.length;
  }

  /** Milliseconds until the earliest pending sleep wakes, or `undefined` when none is pending. */
  nextWakeIn(): number | undefined {
    const first = this.#sleepers[0];
    return first === undefined ? undefined : first.wakeAt - this.#monotonic;
  }

  /** Resolves once at least `count` sleeps are pending: the event a test waits for instead of a real delay. */
  whenSleeping(count = 1): Promise<void> {
    if (this.#sleepers.length >= count) return Promise.resolve();
    return new Promise<void>((resolve) => this.#waiters.push({ count, resolve }));
  }

  /**
   * Moves wall and monotonic time forward by `ms`, waking every sleep that falls due on the way,
   * earliest first, and letting its continuation run before moving on.
   */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`ManualClock.advance needs a non-negative duration, got ${ms}`);
    const target = this.#monotonic + ms;
    for (;;) {
      const due = this.#sleepers[0];
      if (due === undefined || due.wakeAt > target) break;
      this.#sleepers.shift();
      this.#moveTo(due.wakeAt);
      due.detach();
      due.resolve();
      await nextMacrotask();
    }
    this.#moveTo(target);
    await nextMacrotask();
  }

  /** Advances exactly to the earliest pending sleep and wakes it; returns the milliseconds advanced. */
  async advanceToNextWake(): Promise<number> {
    const wait = this.nextWakeIn();
    if (wait === undefined) throw new Error('ManualClock.advanceToNextWake: no sleep is pending');
    await this.advance(wait);
    return wait;
  }

  /** Sets the wall clock alone, as an NTP correction would; monotonic time and sleeps are unaffected. */
  setWallTime(epochMs: number): void {
    this.#wall = epochMs;
  }

  #moveTo(monotonic: number): void {
    this.#wall += monotonic - this.#monotonic;
    this.#monotonic = monotonic;
  }

  #notifyWaiters(): void {
    const ready = this.#waiters.filter((w) => this.#sleepers.length >= w.count);
    this.#waiters = this.#waiters.filter((w) => this.#sleepers.length < w.count);
    for (const w of ready) w.resolve();
  }
}
