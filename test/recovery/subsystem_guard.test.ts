import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual_clock.js';
import { LLMAuthError, LLMCapacityError, LLMRateLimitError, LLMRequestError, LLMTransportError } from '../../src/llm/errors.js';
import { CircuitOpenError } from '../../src/recovery/circuit_open_error.js';
import { SubsystemGuard } from '../../src/recovery/subsystem_guard.js';

const NAME = 'llm:openai';
const details = { provider: 'openai', model: 'm' };

function guard(): { guard: SubsystemGuard; clock: ManualClock } {
  const clock = new ManualClock();
  return { guard: new SubsystemGuard({ failureThreshold: 3, degradedMs: 60_000 }, clock, pino({ level: 'silent' })), clock };
}

describe('SubsystemGuard', () => {
  it('never counts overloads, open breakers or passing rate limits: they only degrade, and that expires', async () => {
    const { guard: g, clock } = guard();
    for (let i = 0; i < 10; i++) {
      g.recordFailure(NAME, new LLMCapacityError('busy', details));
      g.recordFailure(NAME, new CircuitOpenError('openai', 'm', 1_000, 'open'));
      g.recordFailure(NAME, new LLMRateLimitError('slow', details, false));
    }
    expect(g.snapshots()).toEqual([{ name: NAME, status: 'degraded', consecutiveFailures: 0 }]);
    await clock.advance(59_999);
    expect(g.status(NAME)).toBe('degraded');
    await clock.advance(1);
    expect(g.status(NAME)).toBe('healthy');
  });

  it('latches unavailable after the threshold of real failures, and the latch outlives time', async () => {
    const { guard: g, clock } = guard();
    g.recordFailure(NAME, new LLMTransportError('refused', details));
    g.recordFailure(NAME, new LLMAuthError('bad key', details));
    expect(g.status(NAME)).toBe('healthy');
    g.recordFailure(NAME, new LLMRateLimitError('quota', details, true));
    expect(g.status(NAME)).toBe('unavailable');
    await clock.advance(24 * 3_600_000);
    expect(g.status(NAME)).toBe('unavailable');
  });

  it('does not blame the provider for a request it refused as malformed', () => {
    const { guard: g } = guard();
    for (let i = 0; i < 5; i++) g.recordFailure(NAME, new LLMRequestError('context too long', details));
    expect(g.status(NAME)).toBe('healthy');
  });

  it('clears a latch only for the provider a response names; a response that names none changes nothing', () => {
    const { guard: g } = guard();
    for (let i = 0; i < 3; i++) g.recordFailure(NAME, new LLMTransportError('refused', details));
    g.notifyGenerationSuccess(undefined);
    g.notifyGenerationSuccess({ provider: '', model: 'm' });
    g.notifyGenerationSuccess({ provider: 'anthropic', model: 'claude' });
    expect(g.status(NAME)).toBe('unavailable');
    g.notifyGenerationSuccess({ provider: 'openai', model: 'm' });
    expect(g.status(NAME)).toBe('healthy');
    expect(g.snapshots()).toEqual([]);
  });
});
