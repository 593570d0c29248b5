import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { configProblems } from '../support/config_problems.js';
import { recoverySettings } from '../../src/recovery/settings.js';

describe('the llm_recovery section', () => {
  it('defaults to a 300 s deadline, 45 s backoff cap, 90 s retry-after cap and a breaker that opens on the first failed generation', () => {
    expect(recoverySettings(parseConfigText('', 'c.yml', {}).llm_recovery)).toEqual({
      deadlineMs: 300_000,
      backoffBaseMs: 1_000,
      backoffCapMs: 45_000,
      retryAfterMaxMs: 90_000,
      breaker: { generationThreshold: 1, cooldownBaseMs: 30_000, cooldownCapMs: 300_000, probeTimeoutMs: 300_000 },
      guard: { failureThreshold: 3, degradedMs: 60_000 },
    });
  });

  it('takes fractions of seconds', () => {
    const section = parseConfigText('llm_recovery:\n  generation_deadline_seconds: 2.5\n  backoff_base_seconds: 0.05\n', 'c.yml', {}).llm_recovery;
    expect(recoverySettings(section)).toMatchObject({ deadlineMs: 2_500, backoffBaseMs: 50 });
  });

  it('refuses a zero deadline and a fractional threshold, naming each key', () => {
    expect(configProblems('llm_recovery:\n  generation_deadline_seconds: 0\n  breaker_generation_threshold: 1.5\n')).toEqual([
      'c.yml:2:32: llm_recovery.generation_deadline_seconds: Too small: expected number to be >0; got 0',
      'c.yml:3:33: llm_recovery.breaker_generation_threshold: expected an integer, got 1.5',
    ]);
  });

  it('refuses caps below their bases', () => {
    const text = 'llm_recovery:\n  backoff_base_seconds: 10\n  backoff_cap_seconds: 5\n  breaker_cooldown_base_seconds: 60\n  breaker_cooldown_cap_seconds: 30\n';
    expect(configProblems(text)).toEqual([
      'c.yml:3:24: llm_recovery.backoff_cap_seconds: must be at least backoff_base_seconds',
      'c.yml:5:33: llm_recovery.breaker_cooldown_cap_seconds: must be at least breaker_cooldown_base_seconds',
    ]);
  });
});
