import type { ModelCapacityBreaker } from '../../recovery/capacity_breaker.js';
import { whenAnyAdmits } from '../../recovery/model_route.js';

/** What a waiter needs to know about the suspended turn it watches. */
export interface AutoResumeTarget {
  readonly turnId: string;
  readonly channel: string;
  /** The channel's history revision right after the suspension: any later change means the conversation moved on. */
  readonly revision: number;
}

/**
 * In-process waiters for turns suspended by an overload (DESIGN §9): each waits until one of its
 * models' breakers admits a call — it closed, or its probe slot is free — and then asks `resume`
 * to continue the turn; the resumed generation is that model's probe when one is needed. A waiter wakes
 * the moment the breaker changes, not at the times it named: many turns suspended by one storm
 * all go as soon as the provider recovers. One waiter per turn; waiters do not survive a
 * restart; `stop` ends them all.
 */
export class AutoResumer {
  readonly #waiters = new Map<string, { readonly stop: AbortController; readonly done: Promise<void> }>();
  #stopped = false;

  constructor(private readonly resume: (target: AutoResumeTarget) => void) {}

  /** Registers a waiter for `target` on the breakers of its models, in place of the turn's earlier one; none once stopped. */
  watch(target: AutoResumeTarget, breakers: readonly ModelCapacityBreaker[]): void {
    if (this.#stopped) return;
    this.#waiters.get(target.turnId)?.stop.abort();
    const stop = new AbortController();
    const done = this.#wait(target, breakers, stop);
    this.#waiters.set(target.turnId, { stop, done });
  }

  /** Ends every waiter; none will resume anything afterwards. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const waiters = [...this.#waiters.values()];
    for (const waiter of waiters) waiter.stop.abort();
    await Promise.all(waiters.map((waiter) => waiter.done));
  }

  async #wait(target: AutoResumeTarget, breakers: readonly ModelCapacityBreaker[], stop: AbortController): Promise<void> {
    try {
      await whenAnyAdmits(breakers, stop.signal);
    } catch {
      return;
    } finally {
      if (this.#waiters.get(target.turnId)?.stop === stop) this.#waiters.delete(target.turnId);
    }
    this.resume(target);
  }
}
