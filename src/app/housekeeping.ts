import type { Clock } from '../core/clock.js';
import { repeatUntilAborted } from '../core/repeat.js';
import type { HousekeepingStore } from '../turn_state/turn_store.js';

/**
 * The periodic sweeps (DESIGN §10): turns whose lease expired while the program ran are
 * suspended, and the retention clocks run, every `intervalMs` until `signal` aborts; then
 * `announce` (which must not throw) is given the ids of the turns this round reclaimed — their
 * channels are told once, by the process that reclaimed them (DESIGN §7.7) — and tells the
 * requesters of turns the operators resolved meanwhile (DESIGN §9.1). A failed sweep is logged by
 * the store and tried again next time.
 */
export async function keepHouse(store: HousekeepingStore, clock: Clock, intervalMs: number, signal: AbortSignal, announce: (reclaimed: readonly string[]) => Promise<void>): Promise<void> {
  await repeatUntilAborted(clock, intervalMs, signal, async () => {
    let reclaimed: readonly string[] = [];
    try {
      reclaimed = (await store.sweepExpiredLeases()).turnIds;
      await store.sweepRetention();
    } catch {
      // Logged by the store; the next round tries again.
    }
    await announce(reclaimed);
  });
}
