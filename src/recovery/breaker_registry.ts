import type { Clock } from '../core/clock.js';
import type { IdFactory } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import { ModelCapacityBreaker, type BreakerSnapshot } from './capacity_breaker.js';
import type { BreakerSettings } from './settings.js';

/** One breaker's state and the model it guards (a model name may itself contain `:`). */
export interface ModelBreakerSnapshot {
  readonly provider: string;
  readonly model: string;
  readonly snapshot: BreakerSnapshot;
}

/**
 * Every model's capacity breaker, keyed `provider:model`. It belongs to the running program, not
 * to a provider client, so rebuilding a client or reloading configuration keeps what the
 * breakers have learned. Each transition is logged with wall-clock times an operator can read.
 */
export class ModelBreakerRegistry {
  readonly #breakers = new Map<string, ModelCapacityBreaker>();
  /** When each breaker last opened, as an ISO 8601 wall-clock time. */
  readonly #openedAt = new Map<string, string>();

  constructor(
    private readonly settings: BreakerSettings,
    private readonly clock: Clock,
    private readonly ids: IdFactory,
    private readonly logger: Logger,
  ) {}

  /** The breaker of `provider:model`, made on first use. */
  get(provider: string, model: string): ModelCapacityBreaker {
    const key = `${provider}:${model}`;
    let breaker = this.#breakers.get(key);
    if (breaker === undefined) {
      breaker = new ModelCapacityBreaker(provider, model, this.settings, this.clock, this.ids, (snapshot) => this.#logTransition(snapshot));
      this.#breakers.set(key, breaker);
    }
    return breaker;
  }

  /** Every breaker's state, for status output. */
  snapshots(): BreakerSnapshot[] {
    return [...this.#breakers.values()].map((breaker) => breaker.snapshot());
  }

  /** Every breaker's state with the provider and model it guards, for the metrics. */
  modelSnapshots(): ModelBreakerSnapshot[] {
    return [...this.#breakers.values()].map((breaker) => ({ provider: breaker.provider, model: breaker.model, snapshot: breaker.snapshot() }));
  }

  /** The snapshot's monotonic times as ISO 8601 wall-clock times: when the breaker last opened, and from when a probe may go. */
  #logTransition(snapshot: BreakerSnapshot): void {
    const { key, state, nextProbeAtMs, cooldownMs, probeInFlight, failedGenerations } = snapshot;
    const now = this.clock.now();
    if (state === 'open') this.#openedAt.set(key, new Date(now).toISOString());
    // An undefined field is left out of the line.
    const breaker = {
      key,
      state,
      openedAt: this.#openedAt.get(key),
      nextProbeAt: nextProbeAtMs === undefined ? undefined : new Date(now + (nextProbeAtMs - this.clock.monotonicNow())).toISOString(),
      cooldownMs,
      probeInFlight,
      failedGenerations,
    };
    this.logger.info({ breaker }, `capacity breaker ${key} is ${state}`);
  }
}
