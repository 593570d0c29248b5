import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { LLMError } from '../llm/errors.js';
import type { Provenance } from '../llm/protocol.js';
import { isCircuitOpenError, type CircuitOpenError } from './circuit_open_error.js';
import type { GuardSettings } from './settings.js';

export type HealthStatus = 'healthy' | 'degraded' | 'unavailable';

/** One subsystem's health, for status output. */
export interface HealthSnapshot {
  readonly name: string;
  readonly status: HealthStatus;
  readonly consecutiveFailures: number;
}

interface Health {
  consecutiveFailures: number;
  latched: boolean;
  degradedUntil: number;
}

/**
 * Health per subsystem, named `llm:<provider>` for models (DESIGN §5.3). Real failures count
 * toward a sticky UNAVAILABLE latch that only a success clears. Weather never does: an overload,
 * an open breaker or a passing rate limit only marks the subsystem DEGRADED for a while, which
 * expires by itself. A request the provider refused as malformed says nothing about its health.
 */
export class SubsystemGuard {
  readonly #health = new Map<string, Health>();

  constructor(
    private readonly settings: GuardSettings,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Records a failed call to `name`. */
  recordFailure(name: string, error: LLMError | CircuitOpenError): void {
    const health = this.#of(name);
    // Overloads, open breakers and rate limits that will pass are weather, not the subsystem's fault.
    if (isCircuitOpenError(error) || error.kind === 'capacity' || (error.kind === 'rate_limit' && error.isRetryable)) {
      health.degradedUntil = this.clock.monotonicNow() + this.settings.degradedMs;
      return;
    }
    if (error.kind === 'request') return;
    health.consecutiveFailures += 1;
    if (!health.latched && health.consecutiveFailures >= this.settings.failureThreshold) {
      health.latched = true;
      this.logger.warn({ subsystem: name, failures: health.consecutiveFailures, error: error.message }, `${name} is unavailable`);
    }
  }

  /** Records a successful call to `name`: the failure count and any latch or degradation clear. */
  recordSuccess(name: string): void {
    const health = this.#health.get(name);
    if (health === undefined) return;
    if (health.latched) this.logger.info({ subsystem: name }, `${name} is available again`);
    this.#health.delete(name);
  }

  /**
   * A generation succeeded: clears the health of the provider its response names. A response
   * that names no provider changes nothing; the guard never guesses who answered.
   */
  notifyGenerationSuccess(provenance: Provenance | undefined): void {
    if (provenance === undefined || provenance.provider === '') return;
    this.recordSuccess(`llm:${provenance.provider}`);
  }

  status(name: string): HealthStatus {
    const health = this.#health.get(name);
    if (health === undefined) return 'healthy';
    if (health.latched) return 'unavailable';
    return this.clock.monotonicNow() < health.degradedUntil ? 'degraded' : 'healthy';
  }

  snapshots(): HealthSnapshot[] {
    return [...this.#health.entries()].map(([name, health]) => ({ name, status: this.status(name), consecutiveFailures: health.consecutiveFailures }));
  }

  #of(name: string): Health {
    let health = this.#health.get(name);
    if (health === undefined) {
      health = { consecutiveFailures: 0, latched: false, degradedUntil: 0 };
      this.#health.set(name, health);
    }
    return health;
  }
}
