import { z } from 'zod';
import { seconds } from '../config/schema_parts.js';

/** The `llm_recovery` section. */
export const llmRecoverySection = z
  .strictObject({
    generation_deadline_seconds: seconds('How long one generation may keep retrying an overloaded or unreachable model', 300),
    backoff_base_seconds: seconds('The first backoff step; each retry doubles it, with full jitter', 1),
    backoff_cap_seconds: seconds('The longest backoff between two attempts', 45),
    retry_after_max_seconds: seconds("The most a provider's retry-after is honoured", 90),
    breaker_generation_threshold: z
      .int()
      .positive()
      .default(1)
      .describe('How many failed generations in a row (each counted once, however many attempts it made) open the capacity breaker of a model.'),
    breaker_cooldown_base_seconds: seconds('How long an open breaker waits before it lets one probe through; doubles each time the probe fails', 30),
    breaker_cooldown_cap_seconds: seconds('The longest breaker cooldown', 300),
    breaker_probe_timeout_seconds: seconds('How long a probe may go without reporting back before its slot is freed for another', 300),
    guard_failure_threshold: z.int().positive().default(3).describe('How many real failures in a row (not overloads) mark a provider unavailable until it succeeds again.'),
    guard_degraded_seconds: seconds('How long an overload marks a provider degraded', 60),
  })
  .refine((r) => r.backoff_cap_seconds >= r.backoff_base_seconds, { path: ['backoff_cap_seconds'], message: 'must be at least backoff_base_seconds' })
  .refine((r) => r.breaker_cooldown_cap_seconds >= r.breaker_cooldown_base_seconds, {
    path: ['breaker_cooldown_cap_seconds'],
    message: 'must be at least breaker_cooldown_base_seconds',
  })
  .describe('How model calls wait out overloads: the deadline, backoff, the per-model capacity breaker and the provider health guard.');

/** The validated section, defaults filled in. */
export type LlmRecoverySettings = z.output<typeof llmRecoverySection>;

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
export function recoverySettings(section: LlmRecoverySettings): RecoverySettings {
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
