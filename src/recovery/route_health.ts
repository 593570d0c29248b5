import type { Clock } from '../core/clock.js';
import { LinkedAbort } from '../core/linked_abort.js';
import type { ModelCapacityBreaker } from './capacity_breaker.js';

/** How the models of a route stand for the people who use them: `overloaded` while every one of them is refused by its breaker. */
export type RouteHealth = 'ok' | 'overloaded';

/**
 * `overloaded` while the breaker of every model of the route is open (DESIGN §5.2, §5.4), else
 * `ok`: a closed breaker admits calls, and a half-open one lets a probe through.
 */
export function routeHealth(breakers: readonly ModelCapacityBreaker[]): RouteHealth {
  return breakers.length > 0 && breakers.every((breaker) => breaker.snapshot().state === 'open') ? 'overloaded' : 'ok';
}

/**
 * Tells `show` each change of the health of the route guarded by `breakers` until `signal`
 * aborts, starting from `ok` (nothing is told until it first changes). It wakes at every
 * transition of those breakers and, while the route is overloaded, at the end of the first
 * cooldown, when that model lets a probe through again.
 */
export async function watchRouteHealth(breakers: readonly ModelCapacityBreaker[], clock: Clock, signal: AbortSignal, show: (health: RouteHealth) => void): Promise<void> {
  let shown: RouteHealth = 'ok';
  while (!signal.aborted) {
    const health = routeHealth(breakers);
    if (health !== shown) {
      shown = health;
      show(health);
    }
    await nextChange(breakers, clock, health === 'overloaded' ? firstCooldownEnd(breakers) : undefined, signal);
  }
}

/** When the first open breaker of `breakers` ends its cooldown (monotonic); `undefined` when none is open. */
function firstCooldownEnd(breakers: readonly ModelCapacityBreaker[]): number | undefined {
  const ends = breakers.flatMap((breaker) => {
    const { state, nextProbeAtMs } = breaker.snapshot();
    return state === 'open' && nextProbeAtMs !== undefined ? [nextProbeAtMs] : [];
  });
  return ends.length === 0 ? undefined : Math.min(...ends);
}

/** Resolves at the next transition of any of `breakers`, at `wakeAtMs` when given, or when `signal` aborts, whichever comes first. */
async function nextChange(breakers: readonly ModelCapacityBreaker[], clock: Clock, wakeAtMs: number | undefined, signal: AbortSignal): Promise<void> {
  const changed = new LinkedAbort(signal);
  const stops = breakers.map((breaker) => breaker.onChange(() => changed.abort()));
  const either = changed.signal;
  try {
    if (wakeAtMs === undefined) await aborted(either);
    else await clock.sleep(wakeAtMs - clock.monotonicNow(), either);
  } catch (error) {
    if (!either.aborted) throw error;
  } finally {
    for (const stop of stops) stop();
    changed.release();
  }
}

/** Resolves when `signal` aborts, at once if it already has. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
