import { pino } from 'pino';
import { SequentialIds } from '../../src/core/ids.js';
import type { ManualClock } from '../../src/core/manual_clock.js';
import { SequenceRandom } from '../../src/core/random.js';
import { ModelBreakerRegistry } from '../../src/recovery/breaker_registry.js';
import type { RecoveryRuntime } from '../../src/recovery/generate_with_recovery.js';
import type { RecoverySettings } from '../../src/recovery/settings.js';
import { SubsystemGuard } from '../../src/recovery/subsystem_guard.js';

/** Short, round settings so that timelines in tests are easy to follow. */
export const TEST_RECOVERY_SETTINGS: RecoverySettings = {
  deadlineMs: 2_000,
  backoffBaseMs: 100,
  backoffCapMs: 800,
  retryAfterMaxMs: 1_000,
  breaker: { generationThreshold: 1, cooldownBaseMs: 5_000, cooldownCapMs: 40_000, probeTimeoutMs: 10_000 },
  guard: { failureThreshold: 3, degradedMs: 60_000 },
};

/** A recovery runtime on a manual clock with jitter fixed at one half. */
export function testRecoveryRuntime(clock: ManualClock, settings: RecoverySettings = TEST_RECOVERY_SETTINGS): RecoveryRuntime {
  const logger = pino({ level: 'silent' });
  return {
    clock,
    random: new SequenceRandom([0.5]),
    breakers: new ModelBreakerRegistry(settings.breaker, clock, new SequentialIds('probe'), logger),
    guard: new SubsystemGuard(settings.guard, clock, logger),
    settings,
  };
}

/**
 * Advances `clock` through every wait until `work` settles: the test plays the passing of time
 * for code that sleeps, without sleeping itself.
 */
export async function runToCompletion<T>(clock: ManualClock, work: Promise<T>): Promise<T> {
  let settled = false;
  const done = work.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) {
    await Promise.race([clock.whenSleeping(), done]);
    if (!settled) await clock.advanceToNextWake();
  }
  return work;
}
