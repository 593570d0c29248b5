import type { Config } from '../config/schema.js';

/** The `llm_recovery` section in milliseconds, as the policy, breaker and guard use it. */
export interface RecoverySettings {
  readonly deadlineMs: number;
  readonly backoffBaseMs: number;
  readonly backoffCapMs: number;
  readonly retryAfterMaxMs: number;
  readonly breaker: BreakerSettings;
  readonly guard: GuardSettings;
}

export interface BreakerSettings {
  readonly generationThreshold: number;
  readonly cooldownBaseMs: number;
  readonly cooldownCapMs: number;
  readonly probeTimeoutMs: number;
}

export interface GuardSettings {
  readonly failureThreshold: number;
  readonly degradedMs: number;
}

/** Reads the validated `llm_recovery` section. */
export function recoverySettings(section: Config['llm_recovery']): RecoverySettings {
  const ms = (seconds: number): number => Math.round(seconds * 1000);
  return {
    deadlineMs: ms(section.generation_deadline_seconds),
    backoffBaseMs: ms(section.backoff_base_seconds),
    backoffCapMs: ms(section.backoff_cap_seconds),
    retryAfterMaxMs: ms(section.retry_after_max_seconds),
    breaker: {
      generationThreshold: section.breaker_generation_threshold,
      cooldownBaseMs: ms(section.breaker_cooldown_base_seconds),
      cooldownCapMs: ms(section.breaker_cooldown_cap_seconds),
      probeTimeoutMs: ms(section.breaker_probe_timeout_seconds),
    },
    guard: { failureThreshold: section.guard_failure_threshold, degradedMs: ms(section.guard_degraded_seconds) },
  };
}
