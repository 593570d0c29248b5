import { abortReason } from '../core/clock.js';
import { LinkedAbort } from '../core/linked_abort.js';
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

/** A probe slot a caller holds: the breaker it belongs to and the token that lets its holder through. */
export interface HeldProbe {
  readonly breaker: ModelCapacityBreaker;
  readonly token: string;
}

/** Whether a caller may go to the route's models: with the probe slots it took (none when a breaker is closed), or not now. */
export type RouteClaim =
  | { readonly kind: 'claimed'; readonly probes: readonly HeldProbe[] }
  /** No model admits a call; `retryAtMs` is when the first of them may (monotonic), `undefined` when none can tell. */
  | { readonly kind: 'rejected'; readonly retryAtMs: number | undefined };

/**
 * Asks the models of `route` in order for a call, as a resume does before it takes its lease
 * (DESIGN §9): the first whose breaker admits one wins, taking its probe slot when it is
 * half-open. When none does, `forced` (a person's `resume`) takes the probe slot of every
 * breaker that is not already probing, ending their cooldowns for this call, so the turn tries
 * each model in order at once; an automatic resume waits instead.
 */
export function claimOnRoute(route: ModelRoute, breakers: ModelBreakerRegistry, forced: boolean): RouteClaim {
  const guarded = routeBreakers(route, breakers);
  for (const breaker of guarded) {
    const admission = breaker.admit();
    if (admission.kind === 'admitted') return { kind: 'claimed', probes: [] };
    if (admission.kind === 'probe') return { kind: 'claimed', probes: [{ breaker, token: admission.token }] };
  }
  const probes = forced ? guarded.flatMap((breaker) => probeOf(breaker, breaker.claimProbe())) : [];
  return probes.length > 0 ? { kind: 'claimed', probes } : { kind: 'rejected', retryAtMs: earliestTry(guarded) };
}

function probeOf(breaker: ModelCapacityBreaker, admission: Admission): HeldProbe[] {
  return admission.kind === 'probe' ? [{ breaker, token: admission.token }] : [];
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
  const first = new LinkedAbort(signal);
  try {
    await Promise.race(breakers.map((breaker) => breaker.whenAdmits(first.signal, maxMs)));
  } finally {
    first.release();
  }
  if (signal.aborted) throw abortReason(signal);
}
