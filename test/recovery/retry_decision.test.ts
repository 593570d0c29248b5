import { describe, expect, it } from 'vitest';
import { SequenceRandom } from '../support/sequence_random.js';
import { LLMAuthError, LLMCapacityError, LLMRateLimitError, LLMRequestError, LLMTransportError, type LLMErrorDetails } from '../../src/llm/errors.js';
import { CircuitOpenError } from '../../src/recovery/circuit_open_error.js';
import { decideRetry, type RetryContext, type RetryDecision } from '../../src/recovery/retry_decision.js';

const settings = { backoffBaseMs: 1_000, backoffCapMs: 45_000, retryAfterMaxMs: 90_000 };
const details = (extra: Partial<LLMErrorDetails> = {}): LLMErrorDetails => ({ provider: 'openai', model: 'm', ...extra });

function context(overrides: Partial<RetryContext> = {}): RetryContext {
  return { attempts: 1, remainingMs: 300_000, nowMs: 10_000, retryCircuitOpen: true, settings, random: new SequenceRandom([0.5]), ...overrides };
}

describe('decideRetry', () => {
  it.each<[string, unknown, Partial<RetryContext>, RetryDecision]>([
    ['capacity, first retry: half the 1 s ceiling with jitter 0.5', new LLMCapacityError('x', details()), {}, { kind: 'retry', delayMs: 500, reason: 'backoff' }],
    ['transport, fourth attempt: the ceiling doubles each attempt', new LLMTransportError('x', details()), { attempts: 4 }, { kind: 'retry', delayMs: 4_000, reason: 'backoff' }],
    ['capacity, tenth attempt: the ceiling stops at the 45 s cap', new LLMCapacityError('x', details()), { attempts: 10 }, { kind: 'retry', delayMs: 22_500, reason: 'backoff' }],
    ['full jitter can wait nothing at all', new LLMCapacityError('x', details()), { random: new SequenceRandom([0]) }, { kind: 'retry', delayMs: 0, reason: 'backoff' }],
    ['retry-after is a floor above the backoff', new LLMCapacityError('x', details({ retryAfterMs: 7_000 })), {}, { kind: 'retry', delayMs: 7_000, reason: 'retry_after' }],
    ['retry-after below the backoff changes nothing', new LLMCapacityError('x', details({ retryAfterMs: 100 })), { attempts: 4 }, { kind: 'retry', delayMs: 4_000, reason: 'backoff' }],
    ['retry-after is clamped to retry_after_max', new LLMTransportError('x', details({ retryAfterMs: 600_000 })), {}, { kind: 'retry', delayMs: 90_000, reason: 'retry_after' }],
    ['any wait is clamped to the remaining budget', new LLMCapacityError('x', details({ retryAfterMs: 60_000 })), { remainingMs: 1_200 }, { kind: 'retry', delayMs: 1_200, reason: 'retry_after' }],
    ['no budget left: give up with deadline', new LLMCapacityError('x', details()), { remainingMs: 0 }, { kind: 'give_up', reason: 'deadline' }],
    ['an open breaker is waited through until it admits again', new CircuitOpenError('openai', 'm', 40_000, 'open'), {}, { kind: 'retry', delayMs: 30_000, reason: 'circuit_open' }],
    [
      'an open breaker beyond the deadline is waited on only to the deadline',
      new CircuitOpenError('openai', 'm', 40_000, 'open'),
      { remainingMs: 5_000 },
      { kind: 'retry', delayMs: 5_000, reason: 'circuit_open' },
    ],
    ['an open breaker gives up at once when the caller opts out', new CircuitOpenError('openai', 'm', 40_000, 'open'), { retryCircuitOpen: false }, { kind: 'give_up', reason: 'non_retryable' }],
    [
      'a rate limit whose retry-after fits the budget is retried after it',
      new LLMRateLimitError('x', details({ retryAfterMs: 20_000 }), false),
      {},
      { kind: 'retry', delayMs: 20_000, reason: 'retry_after' },
    ],
    [
      'a rate limit whose retry-after does not fit fails fast',
      new LLMRateLimitError('x', details({ retryAfterMs: 20_000 }), false),
      { remainingMs: 19_999 },
      { kind: 'give_up', reason: 'non_retryable' },
    ],
    ['a rate limit without retry-after fails fast', new LLMRateLimitError('x', details(), false), {}, { kind: 'give_up', reason: 'non_retryable' }],
    ['an exhausted quota fails fast even with retry-after', new LLMRateLimitError('x', details({ retryAfterMs: 1_000 }), true), {}, { kind: 'give_up', reason: 'non_retryable' }],
    ['auth fails fast', new LLMAuthError('x', details()), {}, { kind: 'give_up', reason: 'non_retryable' }],
    ['a bad request fails fast', new LLMRequestError('x', details()), {}, { kind: 'give_up', reason: 'non_retryable' }],
    ['an unclassified error escapes as it is', new TypeError('undefined is not a function'), {}, { kind: 'escape' }],
  ])('%s', (_name, error, overrides, expected) => {
    expect(decideRetry(error, context(overrides))).toEqual(expected);
  });
});
