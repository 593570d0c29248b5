import type { UsageStore } from '../../turn_state/usage_store.js';
import type { HoldfastMetrics } from './holdfast_metrics.js';

/**
 * `usage`, counting what passes through it (DESIGN §10.1): each recorded call's tokens by kind and
 * its cost into `holdfast_tokens_total` and `holdfast_cost_total`, and each refused message into
 * `holdfast_limit_refusals_total` — once the store has kept them.
 */
export function meteredUsageStore(usage: UsageStore, metrics: Pick<HoldfastMetrics, 'tokensTotal' | 'costTotal' | 'limitRefusalsTotal'>): UsageStore {
  return {
    ...usage,
    admit: async (request) => {
      const admission = await usage.admit(request);
      if (admission.kind === 'refused') metrics.limitRefusalsTotal.inc({ scope: admission.limit.scope, limit: admission.limit.kind });
      return admission;
    },
    record: async (identity, requesterId, calls) => {
      await usage.record(identity, requesterId, calls);
      for (const call of calls) {
        const counts = { input: call.inputTokens, cached_input: call.cachedInputTokens, output: call.outputTokens, reasoning: call.reasoningTokens };
        for (const [kind, count] of Object.entries(counts)) if (count !== null && count !== undefined) metrics.tokensTotal.inc({ model: call.model, kind }, count);
        if (call.cost !== null) metrics.costTotal.inc({ model: call.model }, call.cost);
      }
    },
  };
}
