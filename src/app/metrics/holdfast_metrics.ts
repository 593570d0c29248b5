import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { Clock } from '../../core/clock.js';
import type { ModelCallUsage } from '../../turn_state/usage_store.js';

/** How a finished turn ended, as `holdfast_turns_total` counts it. */
export const TURN_ENDINGS = ['completed', 'failed', 'cancelled', 'rejected', 'expired'] as const;
export type TurnEnding = (typeof TURN_ENDINGS)[number];

/** What became of a request for approval, as `holdfast_approvals_total` counts it: answered either way, or denied because nobody answered in time. */
export const APPROVAL_ENDINGS = ['approved', 'denied', 'expired'] as const;
export type ApprovalEnding = (typeof APPROVAL_ENDINGS)[number];

/** Durable writes take milliseconds; the buckets reach from a fraction of one to a slow disk's seconds. */
const STORE_WRITE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** A person answers a request in seconds or hours; the buckets reach from a click at once to a day's timeout. */
const APPROVAL_WAIT_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1_800, 3_600, 7_200, 14_400, 43_200, 86_400];

/**
 * The bot's counters and the store's write times, on a registry of their own together with the
 * library's default process metrics (CPU, memory, handles, event-loop lag). The gauges read at
 * scrape time join the same registry once the bot's services are open (`registerScrapeGauges`).
 */
export class HoldfastMetrics {
  readonly registry = new Registry();
  readonly turnsTotal = new Counter({
    name: 'holdfast_turns_total',
    help: 'Finished turns, by how they ended.',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly toolCallsTotal = new Counter({
    name: 'holdfast_tool_calls_total',
    help: 'Tool calls settled in the ledger, by tool, effect class and the state they moved to.',
    labelNames: ['tool', 'effect', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly modelAttemptsTotal = new Counter({
    name: 'holdfast_model_attempts_total',
    help: 'Model requests, by provider, model and result: ok, the typed error kind, or aborted.',
    labelNames: ['provider', 'model', 'result'] as const,
    registers: [this.registry],
  });
  readonly fallbacksTotal = new Counter({
    name: 'holdfast_fallbacks_total',
    help: 'Moves of a model call from an overloaded model to the next one of its route, by the models it moved from and to.',
    labelNames: ['from', 'to'] as const,
    registers: [this.registry],
  });
  readonly approvalsTotal = new Counter({
    name: 'holdfast_approvals_total',
    help: 'Requests for approval answered, by what became of them: approved, denied, or expired (denied because nobody answered in time).',
    labelNames: ['verdict'] as const,
    registers: [this.registry],
  });
  readonly approvalWaitSeconds = new Histogram({
    name: 'holdfast_approval_wait_seconds',
    help: 'How long each request for approval waited, from the request to its answer or its expiry.',
    buckets: APPROVAL_WAIT_BUCKETS,
    registers: [this.registry],
  });
  readonly tokensTotal = new Counter({
    name: 'holdfast_tokens_total',
    help: 'Tokens the models reported, by model and kind: input (cached included), cached_input, output (reasoning included), reasoning.',
    labelNames: ['model', 'kind'] as const,
    registers: [this.registry],
  });
  readonly costTotal = new Counter({
    name: 'holdfast_cost_total',
    help: 'What the models cost by `llm.prices`, in the operator’s currency, by model; only priced models show.',
    labelNames: ['model'] as const,
    registers: [this.registry],
  });
  readonly limitRefusalsTotal = new Counter({
    name: 'holdfast_limit_refusals_total',
    help: 'Messages refused because a limit was reached, by scope (user, channel, server) and limit (turns_per_hour, tokens_per_day).',
    labelNames: ['scope', 'limit'] as const,
    registers: [this.registry],
  });
  readonly storeWriteSeconds = new Histogram({
    name: 'holdfast_store_write_seconds',
    help: 'How long each durable write to the turn store took.',
    buckets: STORE_WRITE_BUCKETS,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Every ending shows from the start, at zero, so that a rate over it is defined before the first one.
    for (const status of TURN_ENDINGS) this.turnsTotal.inc({ status }, 0);
    for (const verdict of APPROVAL_ENDINGS) this.approvalsTotal.inc({ verdict }, 0);
  }

  /** Counts `count` turns that ended as `status`. */
  turnsEnded(status: TurnEnding, count = 1): void {
    this.turnsTotal.inc({ status }, count);
  }

  /** Runs one durable write of the store, timing it into `holdfast_store_write_seconds` on `clock`'s monotonic time, a failed one too. */
  async timedWrite<T>(clock: Clock, write: () => Promise<T>): Promise<T> {
    const started = clock.monotonicNow();
    try {
      return await write();
    } finally {
      this.storeWriteSeconds.observe((clock.monotonicNow() - started) / 1000);
    }
  }

  /** Counts what model calls the store has kept cost: their tokens by kind in `holdfast_tokens_total`, their cost in `holdfast_cost_total`. */
  modelCallsKept(calls: readonly ModelCallUsage[]): void {
    for (const call of calls) {
      const counts = { input: call.inputTokens, cached_input: call.cachedInputTokens, output: call.outputTokens, reasoning: call.reasoningTokens };
      for (const [kind, count] of Object.entries(counts)) if (count !== null && count !== undefined) this.tokensTotal.inc({ model: call.model, kind }, count);
      if (call.cost !== null) this.costTotal.inc({ model: call.model }, call.cost);
    }
  }

  /** Counts a request for approval that ended as `verdict` after waiting `waitedMs`. */
  approvalEnded(verdict: ApprovalEnding, waitedMs: number): void {
    this.approvalsTotal.inc({ verdict });
    this.approvalWaitSeconds.observe(Math.max(0, waitedMs) / 1000);
  }
}
