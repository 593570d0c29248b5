import { abortReason } from '../core/clock.js';
import type { LLMProvider } from '../llm/provider.js';
import type { ModelBreakerRegistry } from './breaker_registry.js';
import type { Admission, ModelCapacityBreaker } from './capacity_breaker.js';

/**
 * The models a generation may use, in the order it prefers them (DESIGN §5.4): the primary first,
 * then its fallbacks. Every model has its own capacity breaker, keyed `provider:model`.
 */
export type ModelRoute = readonly [LLMProvider, ...LLMProvider[]];

/** A route of `primary` followed by `fallbacks`, in order. */
export function routeOf(primary: LLMProvider, fallbacks: readonly LLMProvider[] = []): ModelRoute {
  return [primary, ...fallbacks];
}

/** The breaker of each model of `route`, in its order. */
export function routeBreakers(route: ModelRoute, breakers: ModelBreakerRegistry): ModelCapacityBreaker[] {
  return route.map((model) => breakers.get(model.provider, model.model));
}

/** Which model of a route a caller may go to, and how: admitted, or as the holder of its probe slot. */
export type RouteClaim =
  | { readonly kind: 'claimed'; readonly model: LLMProvider; readonly breaker: ModelCapacityBreaker; readonly admission: Exclude<Admission, { kind: 'rejected' }> }
  /** No model admits a call; `retryAtMs` is when the first of them may (monotonic), `undefined` when none can tell. */
  | { readonly kind: 'rejected'; readonly retryAtMs: number | undefined };

/**
 * Asks the models of `route` in order for a call, as a resume does before it takes its lease
 * (DESIGN §9): the first whose breaker admits one wins, taking its probe slot when it is
 * half-open. `forced` (a person's `resume`) then lets the first open breaker give up its
 * cooldown for this call, as its probe; an automatic resume waits instead.
 */
export function claimOnRoute(route: ModelRoute, breakers: ModelBreakerRegistry, forced: boolean): RouteClaim {
  const guarded = routeBreakers(route, breakers);
  for (const ask of forced ? [(b: ModelCapacityBreaker) => b.admit(), (b: ModelCapacityBreaker) => b.claimProbe()] : [(b: ModelCapacityBreaker) => b.admit()]) {
    for (const [index, breaker] of guarded.entries()) {
      const admission = ask(breaker);
      const model = route[index];
      if (admission.kind !== 'rejected' && model !== undefined) return { kind: 'claimed', model, breaker, admission };
    }
  }
  return { kind: 'rejected', retryAtMs: earliestTry(guarded) };
}

/** When the first of `breakers` would let a waiter try (monotonic); `undefined` when one admits now or none can tell. */
export function earliestTry(breakers: readonly ModelCapacityBreaker[]): number | undefined {
  const times = breakers.map((breaker) => breaker.nextTryAtMs());
  if (times.some((time) => time === undefined)) return undefined;
  return Math.min(...(times as number[]));
}

/**
 * Resolves once any of `breakers` (at least one) would admit a call, or after `maxMs` at the
 * latest; rejects when `signal` aborts. Each breaker wakes its waiter at every change of its own.
 */
export async function whenAnyAdmits(breakers: readonly ModelCapacityBreaker[], signal: AbortSignal, maxMs = Number.POSITIVE_INFINITY): Promise<void> {
  const first = new AbortController();
  const either = AbortSignal.any([signal, first.signal]);
  try {
    await Promise.race(breakers.map((breaker) => breaker.whenAdmits(either, maxMs)));
  } finally {
    first.abort();
  }
  if (signal.aborted) throw abortReason(signal);
}
