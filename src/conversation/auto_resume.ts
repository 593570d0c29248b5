import type { Clock } from '../core/clock.js';
import type { ModelCapacityBreaker } from '../recovery/capacity_breaker.js';

/** What a waiter needs to know about the suspended turn it watches. */
export interface AutoResumeTarget {
  readonly turnId: string;
  readonly channel: string;
  /** The channel's history revision right after the suspension: any later change means the conversation moved on. */
  readonly revision: number;
}

/**
 * In-process waiters for turns suspended by an overload (DESIGN §9): each sleeps until its
 * model's breaker lets a probe through, then asks `resume` to continue the turn — the resumed
 * generation is the probe. Waiters do not survive a restart; `stop` ends them all.
 */
export class AutoResumer {
  readonly #stop = new AbortController();
  readonly #waiting = new Set<Promise<void>>();

  constructor(
    private readonly clock: Clock,
    private readonly resume: (target: AutoResumeTarget) => void,
  ) {}

  /** Registers a waiter for `target` on `breaker`. */
  watch(target: AutoResumeTarget, breaker: ModelCapacityBreaker): void {
    const waiter = this.#wait(target, breaker).finally(() => this.#waiting.delete(waiter));
    this.#waiting.add(waiter);
  }

  /** Ends every waiter; none will resume anything afterwards. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await Promise.all([...this.#waiting]);
  }

  async #wait(target: AutoResumeTarget, breaker: ModelCapacityBreaker): Promise<void> {
    const { nextProbeAtMs } = breaker.snapshot();
    try {
      await this.clock.sleep((nextProbeAtMs ?? this.clock.monotonicNow()) - this.clock.monotonicNow(), this.#stop.signal);
    } catch {
      return;
    }
    this.resume(target);
  }
}
