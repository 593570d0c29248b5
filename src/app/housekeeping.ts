import type { Clock } from '../core/clock.js';
import { repeatUntilAborted } from '../core/repeat.js';
import type { BotServices } from './bot_services.js';

/**
 * The periodic sweeps (DESIGN §10): turns whose lease expired while the program ran are
 * suspended, and the retention clocks run, every `intervalMs` until `signal` aborts; then
 * `announce` (which must not throw) tells the requesters of turns the operators resolved meanwhile
 * (DESIGN §9.1). A failed sweep is logged by the store and tried again next time.
 */
export async function keepHouse(services: BotServices, clock: Clock, intervalMs: number, signal: AbortSignal, announce: () => Promise<void>): Promise<void> {
  await repeatUntilAborted(clock, intervalMs, signal, async () => {
    try {
      await services.store?.sweepExpiredLeases();
      await services.store?.sweepRetention();
    } catch {
      // Logged by the store; the next round tries again.
    }
    await announce();
  });
}
