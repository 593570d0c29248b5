import { backoffDelay, type BackoffSchedule } from '../core/backoff.js';
import type { Random } from '../core/random.js';
import { isLLMError } from '../llm/errors.js';
import { isCircuitOpenError } from './circuit_open_error.js';
import type { RecoverySettings } from './settings.js';
import { assertNever } from '../core/assert_never.js';

/** Why the policy waits before the next attempt. */
export type WaitReason = 'backoff' | 'retry_after' | 'circuit_open';

/** What to do after a failed attempt. `escape`: not a classified error, so a bug — rethrow it as it is. */
export type RetryDecision =
  { readonly kind: 'retry'; readonly delayMs: number; readonly reason: WaitReason } | { readonly kind: 'give_up'; readonly reason: 'deadline' | 'non_retryable' } | { readonly kind: 'escape' };

export interface RetryContext {
  /** How many rounds of attempts were made so far, one attempt each with a single model (the backoff exponent). */
  readonly attempts: number;
  /** What is left of the generation's budget; zero or less means the deadline has passed. */
  readonly remainingMs: number;
  readonly nowMs: number;
  /** Whether to wait through an open breaker (default) or give up at once. */
  readonly retryCircuitOpen: boolean;
  readonly settings: Pick<RecoverySettings, 'backoffBaseMs' | 'backoffCapMs' | 'retryAfterMaxMs'>;
  readonly random: Random;
}

/** The waits between attempts at one generation: full-jitter exponential from the base, capped. */
export function recoveryBackoff(settings: Pick<RecoverySettings, 'backoffBaseMs' | 'backoffCapMs'>): BackoffSchedule {
  return { initialMs: settings.backoffBaseMs, factor: 2, capMs: settings.backoffCapMs, jitter: 'full' };
}

/**
 * The recovery policy's one decision (DESIGN §5.1). Capacity and transport failures are retried
 * after full-jitter exponential backoff, with a provider's retry-after as a floor clamped to
 * `retryAfterMaxMs`; an open breaker is waited through until it admits again; a rate limit that
 * will pass is retried only when its retry-after fits the remaining budget; quota, auth and
 * request errors give up at once. Every wait is clamped to the remaining budget, so the last
 * attempt happens at the deadline, and a failure after it gives up with `deadline`.
 */
export function decideRetry(error: unknown, context: RetryContext): RetryDecision {
  const { settings, remainingMs } = context;
  const fit = (delayMs: number, reason: WaitReason): RetryDecision =>
    remainingMs <= 0 ? { kind: 'give_up', reason: 'deadline' } : { kind: 'retry', delayMs: Math.max(0, Math.min(delayMs, remainingMs)), reason };

  if (isCircuitOpenError(error)) {
    return context.retryCircuitOpen ? fit(error.retryAtMs - context.nowMs, 'circuit_open') : { kind: 'give_up', reason: 'non_retryable' };
  }
  if (!isLLMError(error)) return { kind: 'escape' };
  switch (error.kind) {
    case 'capacity':
    case 'transport': {
      const backoff = backoffDelay(recoveryBackoff(settings), context.attempts - 1, context.random);
      const floor = error.retryAfterMs === undefined ? 0 : Math.min(error.retryAfterMs, settings.retryAfterMaxMs);
      return floor > backoff ? fit(floor, 'retry_after') : fit(backoff, 'backoff');
    }
    case 'rate_limit':
      if (!error.isRetryable || error.retryAfterMs === undefined || error.retryAfterMs > remainingMs) return { kind: 'give_up', reason: 'non_retryable' };
      return fit(Math.min(error.retryAfterMs, settings.retryAfterMaxMs), 'retry_after');
    case 'auth':
    case 'request':
      return { kind: 'give_up', reason: 'non_retryable' };
    default:
      return assertNever(error.kind);
  }
}
