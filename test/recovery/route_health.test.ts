import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ModelBreakerRegistry } from '../../src/recovery/breaker_registry.js';
import { watchRouteHealth, type RouteHealth } from '../../src/recovery/route_health.js';
import type { BreakerSettings } from '../../src/recovery/settings.js';
import { ManualClock } from '../support/manual_clock.js';
import { SequentialIds } from '../support/sequential_ids.js';

const SETTINGS: BreakerSettings = { generationThreshold: 1, cooldownBaseMs: 30_000, cooldownCapMs: 300_000, probeTimeoutMs: 120_000 };

describe('the health of a route (DESIGN §5.4)', () => {
  it('is overloaded only while every model’s breaker is open, and ok again once one closes or lets a probe through', async () => {
    const clock = new ManualClock();
    const breakers = new ModelBreakerRegistry(SETTINGS, clock, new SequentialIds('probe'), pino({ level: 'silent' }));
    const primary = breakers.get('anthropic', 'claude');
    const fallback = breakers.get('openai', 'llama');
    const told: RouteHealth[] = [];
    const stop = new AbortController();
    const watching = watchRouteHealth([primary, fallback], clock, stop.signal, (health) => told.push(health));
    const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

    primary.recordGenerationFailure();
    await settled();
    expect(told).toEqual([]);

    await clock.advance(10_000);
    fallback.recordGenerationFailure();
    await settled();
    expect(told).toEqual(['overloaded']);

    // The primary's cooldown ends first: it lets a probe through, and the route is ok at that instant.
    await clock.advance(19_999);
    expect(told).toEqual(['overloaded']);
    await clock.advance(1);
    expect(told).toEqual(['overloaded', 'ok']);

    // The probe finds the primary still overloaded while the fallback is open: overloaded again, until a person's resume takes the fallback's probe slot.
    const admission = primary.admit();
    if (admission.kind !== 'probe') throw new Error(`expected a probe, got ${admission.kind}`);
    primary.recordProbeFailure(admission.token);
    await settled();
    expect(told).toEqual(['overloaded', 'ok', 'overloaded']);
    fallback.claimProbe();
    await settled();
    expect(told).toEqual(['overloaded', 'ok', 'overloaded', 'ok']);

    stop.abort();
    await expect(watching).resolves.toBeUndefined();
  });

  it('stops at once when the one it tells stops it while being told, waiting for nothing more', async () => {
    const clock = new ManualClock();
    const breakers = new ModelBreakerRegistry(SETTINGS, clock, new SequentialIds('probe'), pino({ level: 'silent' }));
    const only = breakers.get('openai', 'llama');
    const told: RouteHealth[] = [];
    const stop = new AbortController();
    const watching = watchRouteHealth([only], clock, stop.signal, (health) => {
      told.push(health);
      if (health === 'ok') stop.abort();
    });
    only.recordGenerationFailure();
    await new Promise((resolve) => setImmediate(resolve));
    await clock.advance(SETTINGS.cooldownBaseMs);
    await expect(watching).resolves.toBeUndefined();
    expect(told).toEqual(['overloaded', 'ok']);
  });
});
