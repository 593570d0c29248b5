import type { Clock } from '../core/clock.js';
import type { BotServices } from './bot_services.js';

/**
 * The periodic sweeps (DESIGN §10): turns whose lease expired while the program ran are
 * suspended, and the retention clocks run, every `intervalMs` until `signal` aborts. A failed
 * sweep is logged by the store and tried again next time.
 */
export async function keepHouse(services: BotServices, clock: Clock, intervalMs: number, signal: AbortSignal): Promise<void> {
  for (;;) {
    try {
      await clock.sleep(intervalMs, signal);
      await services.store?.sweepExpiredLeases();
      await services.store?.sweepRetention();
    } catch {
      if (signal.aborted) return;
    }
  }
}
