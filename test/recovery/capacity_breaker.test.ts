import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { SequentialIds } from '../support/sequential_ids.js';
import { LEVEL, LogLines } from '../support/log_lines.js';
import { ManualClock } from '../support/manual_clock.js';
import { ModelBreakerRegistry } from '../../src/recovery/breaker_registry.js';
import { ModelCapacityBreaker, type Admission } from '../../src/recovery/capacity_breaker.js';
import type { BreakerSettings } from '../../src/recovery/settings.js';

const SETTINGS: BreakerSettings = { generationThreshold: 1, cooldownBaseMs: 30_000, cooldownCapMs: 300_000, probeTimeoutMs: 120_000 };

function breaker(settings: Partial<BreakerSettings> = {}): { breaker: ModelCapacityBreaker; clock: ManualClock } {
  const clock = new ManualClock();
  return { breaker: new ModelCapacityBreaker('openai', 'gpt', { ...SETTINGS, ...settings }, clock, new SequentialIds('probe')), clock };
}

function probeToken(admission: Admission): string {
  if (admission.kind !== 'probe') throw new Error(`expected a probe admission, got ${admission.kind}`);
  return admission.token;
}

/** Opens the breaker and waits out its cooldown, so that the next admission is the probe. */
async function halfOpen(setup: { breaker: ModelCapacityBreaker; clock: ManualClock }): Promise<void> {
  setup.breaker.recordGenerationFailure();
  await setup.clock.advance(setup.breaker.snapshot().cooldownMs);
}

describe('ModelCapacityBreaker', () => {
  it('admits freely while closed and opens after the threshold of failed generations, counting each once', () => {
    const { breaker: b } = breaker({ generationThreshold: 2 });
    expect(b.admit()).toEqual({ kind: 'admitted' });
    b.recordGenerationFailure();
    expect(b.snapshot()).toMatchObject({ state: 'closed', failedGenerations: 1 });
    b.recordGenerationFailure();
    expect(b.snapshot()).toMatchObject({ key: 'openai:gpt', state: 'open', nextProbeAtMs: 30_000, cooldownMs: 30_000 });
    expect(b.admit()).toMatchObject({ kind: 'rejected', error: { name: 'CircuitOpenError', state: 'open', retryAtMs: 30_000 } });
  });

  it('forgets failed generations when one succeeds', () => {
    const { breaker: b } = breaker({ generationThreshold: 2 });
    b.recordGenerationFailure();
    b.recordSuccess(undefined);
    b.recordGenerationFailure();
    expect(b.snapshot()).toMatchObject({ state: 'closed', failedGenerations: 1 });
  });

  it('admits exactly one probe after the cooldown and tells the others when it may admit again', async () => {
    const setup = breaker();
    setup.breaker.recordGenerationFailure();
    await setup.clock.advance(29_999);
    expect(setup.breaker.admit().kind).toBe('rejected');
    await setup.clock.advance(1);
    expect(setup.breaker.snapshot()).toMatchObject({ state: 'half_open', probeInFlight: false, nextProbeAtMs: 30_000 });
    expect(probeToken(setup.breaker.admit())).toBe('probe-1');
    expect(setup.breaker.admit()).toMatchObject({ kind: 'rejected', error: { state: 'probe_in_flight', retryAtMs: 30_000 + SETTINGS.probeTimeoutMs } });
    expect(setup.breaker.snapshot()).toMatchObject({ state: 'half_open', probeInFlight: true });
  });

  it('lets a stray failure or success during half-open neither escalate nor release nor close it', async () => {
    const setup = breaker();
    await halfOpen(setup);
    const token = probeToken(setup.breaker.admit());
    setup.breaker.recordProbeFailure('someone-else');
    setup.breaker.recordGenerationFailure();
    setup.breaker.abandonProbe('someone-else');
    setup.breaker.recordSuccess(undefined);
    setup.breaker.recordSuccess('someone-else');
    expect(setup.breaker.snapshot()).toMatchObject({ state: 'half_open', probeInFlight: true, cooldownMs: 30_000 });
    expect(setup.breaker.admit().kind).toBe('rejected');
    setup.breaker.recordSuccess(token);
    expect(setup.breaker.snapshot().state).toBe('closed');
  });

  it('re-opens on each probe failure with the cooldown doubled up to the cap, and resets it on probe success', async () => {
    const setup = breaker();
    await halfOpen(setup);
    const cooldowns: number[] = [];
    for (let i = 0; i < 6; i++) {
      setup.breaker.recordProbeFailure(probeToken(setup.breaker.admit()));
      const snapshot = setup.breaker.snapshot();
      expect(snapshot.state).toBe('open');
      cooldowns.push(snapshot.cooldownMs);
      await setup.clock.advance(snapshot.cooldownMs);
    }
    expect(cooldowns).toEqual([60_000, 120_000, 240_000, 300_000, 300_000, 300_000]);
    setup.breaker.recordSuccess(probeToken(setup.breaker.admit()));
    expect(setup.breaker.snapshot()).toMatchObject({ state: 'closed', cooldownMs: 30_000, nextProbeAtMs: undefined });
    setup.breaker.recordGenerationFailure();
    expect(setup.breaker.snapshot()).toMatchObject({ state: 'open', nextProbeAtMs: setup.clock.monotonicNow() + 30_000 });
  });

  it('frees the slot for a new probe when the probe is abandoned', async () => {
    const setup = breaker();
    await halfOpen(setup);
    const first = probeToken(setup.breaker.admit());
    setup.breaker.abandonProbe(first);
    expect(setup.breaker.snapshot()).toMatchObject({ state: 'half_open', probeInFlight: false });
    const second = probeToken(setup.breaker.admit());
    expect(second).not.toBe(first);
    setup.breaker.recordSuccess(first);
    expect(setup.breaker.snapshot().state).toBe('half_open');
  });

  it('frees the slot of a probe that never reports back once the probe timeout passes, and ignores its late report', async () => {
    const setup = breaker();
    await halfOpen(setup);
    const lost = probeToken(setup.breaker.admit());
    await setup.clock.advance(SETTINGS.probeTimeoutMs - 1);
    expect(setup.breaker.admit().kind).toBe('rejected');
    await setup.clock.advance(1);
    const fresh = probeToken(setup.breaker.admit());
    setup.breaker.recordProbeFailure(lost);
    expect(setup.breaker.snapshot()).toMatchObject({ state: 'half_open', probeInFlight: true, cooldownMs: 30_000 });
    setup.breaker.recordSuccess(fresh);
    expect(setup.breaker.snapshot().state).toBe('closed');
  });
});

describe('waiting for a breaker to admit', () => {
  it('wakes a waiter the moment the probe closes the breaker, not at the probe’s expiry', async () => {
    const setup = breaker();
    await halfOpen(setup);
    const token = probeToken(setup.breaker.admit());
    let woke = false;
    const waiting = setup.breaker.whenAdmits(new AbortController().signal).then(() => (woke = true));
    await setup.clock.advance(1_000);
    expect(woke).toBe(false);
    setup.breaker.recordSuccess(token);
    await waiting;
    expect(setup.clock.monotonicNow()).toBe(SETTINGS.cooldownBaseMs + 1_000);
  });

  it('wakes a waiter at the end of the cooldown, and when a probe gives its slot back', async () => {
    const setup = breaker();
    setup.breaker.recordGenerationFailure();
    const stop = new AbortController();
    await Promise.all([setup.breaker.whenAdmits(stop.signal), setup.clock.advance(SETTINGS.cooldownBaseMs)]);
    const token = probeToken(setup.breaker.admit());
    const waiting = setup.breaker.whenAdmits(stop.signal);
    setup.breaker.abandonProbe(token);
    await waiting;
    expect(setup.clock.monotonicNow()).toBe(SETTINGS.cooldownBaseMs);
  });

  it('gives a person’s resume the probe slot during the cooldown, but not while another probe is in flight', () => {
    const { breaker: b } = breaker();
    b.recordGenerationFailure();
    const token = probeToken(b.claimProbe());
    expect(b.claimProbe()).toMatchObject({ kind: 'rejected', error: { state: 'probe_in_flight' } });
    expect(b.admit(token)).toEqual({ kind: 'probe', token });
    expect(b.nextTryAtMs()).toBe(2 * SETTINGS.cooldownBaseMs);
    b.recordSuccess(token);
    expect(b.snapshot().state).toBe('closed');
  });

  it('names no next try while a call would go now, and the end of the cooldown while open', async () => {
    const setup = breaker();
    expect(setup.breaker.nextTryAtMs()).toBeUndefined();
    setup.breaker.recordGenerationFailure();
    expect(setup.breaker.nextTryAtMs()).toBe(SETTINGS.cooldownBaseMs);
    await setup.clock.advance(SETTINGS.cooldownBaseMs);
    expect(setup.breaker.nextTryAtMs()).toBeUndefined();
  });

  it('stops a waiter whose caller already gave up, even when the breaker would admit it', async () => {
    const setup = breaker();
    const stop = new AbortController();
    stop.abort(new Error('stopped'));
    await expect(setup.breaker.whenAdmits(stop.signal)).rejects.toThrow('stopped');
  });

  it('stops a waiter the moment its caller gives up during the cooldown', async () => {
    const setup = breaker();
    setup.breaker.recordGenerationFailure();
    const stop = new AbortController();
    const waiting = setup.breaker.whenAdmits(stop.signal);
    await setup.clock.advance(1_000);
    stop.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    expect(setup.clock.monotonicNow()).toBe(1_000);
  });
});

describe('ModelBreakerRegistry', () => {
  it('keeps one breaker per provider:model for as long as the registry lives', () => {
    const registry = new ModelBreakerRegistry(SETTINGS, new ManualClock(), new SequentialIds(), pino({ level: 'silent' }));
    registry.get('openai', 'a').recordGenerationFailure();
    expect(registry.get('openai', 'a').snapshot().state).toBe('open');
    expect(registry.get('openai', 'b').snapshot().state).toBe('closed');
    expect(registry.get('anthropic', 'a').snapshot().state).toBe('closed');
    expect(registry.snapshots().map((s) => `${s.key}=${s.state}`)).toEqual(['openai:a=open', 'openai:b=closed', 'anthropic:a=closed']);
  });

  it('logs every transition with wall-clock ISO 8601 times: when the breaker opened and when a probe may go', async () => {
    const clock = new ManualClock({ wallStart: Date.UTC(2026, 2, 1, 12, 0, 0), monotonicStart: 987_654 });
    const log = new LogLines('info');
    const registry = new ModelBreakerRegistry(SETTINGS, clock, new SequentialIds(), log.logger);
    const b = registry.get('openai', 'gpt');
    b.recordGenerationFailure();
    await clock.advance(30_000);
    b.recordProbeFailure(probeToken(b.admit()));
    await clock.advance(60_000);
    b.recordSuccess(probeToken(b.admit()));

    expect(log.lines.map((line) => [line.level, line.msg, line['breaker']])).toEqual([
      [
        LEVEL.info,
        'capacity breaker openai:gpt is open',
        { key: 'openai:gpt', state: 'open', openedAt: '2026-03-01T12:00:00.000Z', nextProbeAt: '2026-03-01T12:00:30.000Z', cooldownMs: 30_000, probeInFlight: false, failedGenerations: 0 },
      ],
      [
        LEVEL.info,
        'capacity breaker openai:gpt is half_open',
        { key: 'openai:gpt', state: 'half_open', openedAt: '2026-03-01T12:00:00.000Z', nextProbeAt: '2026-03-01T12:00:30.000Z', cooldownMs: 30_000, probeInFlight: false, failedGenerations: 0 },
      ],
      [
        LEVEL.info,
        'capacity breaker openai:gpt is open',
        { key: 'openai:gpt', state: 'open', openedAt: '2026-03-01T12:00:30.000Z', nextProbeAt: '2026-03-01T12:01:30.000Z', cooldownMs: 60_000, probeInFlight: false, failedGenerations: 0 },
      ],
      [
        LEVEL.info,
        'capacity breaker openai:gpt is half_open',
        { key: 'openai:gpt', state: 'half_open', openedAt: '2026-03-01T12:00:30.000Z', nextProbeAt: '2026-03-01T12:01:30.000Z', cooldownMs: 60_000, probeInFlight: false, failedGenerations: 0 },
      ],
      [
        LEVEL.info,
        'capacity breaker openai:gpt is closed',
        { key: 'openai:gpt', state: 'closed', openedAt: '2026-03-01T12:00:30.000Z', cooldownMs: 30_000, probeInFlight: false, failedGenerations: 0 },
      ],
    ]);
  });
});
