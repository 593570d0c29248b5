import type { Clock } from '../../core/clock.js';
import type { UsageStore } from '../../turn_state/usage_store.js';
import type { HoldfastMetrics } from './holdfast_metrics.js';

/**
 * `usage`, counting what passes through it (DESIGN §10.1): each recorded call's tokens by kind and
 * its cost into `holdfast_tokens_total` and `holdfast_cost_total`, and each refused message into
 * `holdfast_limit_refusals_total` — once the store has kept them; its writes are timed with the
 * turn store's, in `holdfast_store_write_seconds`. The calls a turn's own write carries are counted
 * by the turn store's meter.
 */
export function meteredUsageStore(usage: UsageStore, metrics: HoldfastMetrics, clock: Clock): UsageStore {
  return {
    ...usage,
    admit: async (request) => {
      const admission = await metrics.timedWrite(clock, () => usage.admit(request));
      if (admission.kind === 'refused') metrics.limitRefusalsTotal.inc({ scope: admission.limit.scope, limit: admission.limit.kind });
      return admission;
    },
    record: async (identity, requesterId, calls) => {
      await metrics.timedWrite(clock, () => usage.record(identity, requesterId, calls));
      metrics.modelCallsKept(calls);
    },
  };
}
