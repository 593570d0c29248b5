import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { pino } from 'pino';
import { SequentialIds } from './sequential_ids.js';
import type { ManualClock } from './manual_clock.js';
import { SequenceRandom } from './sequence_random.js';
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

/** How far {@link runToCompletion} may go before it gives up on the work. */
export interface RunLimits {
  /** What is running, named in the failure (default `the work`). */
  readonly what?: string;
  /** The most sleeps it wakes (default 1,000; the engine's own tests need about ten). */
  readonly maxWakes?: number;
  /** The most simulated time it lets pass, in milliseconds (default one hour). */
  readonly maxSimulatedMs?: number;
  /**
   * How many sleeps must be pending before time moves (default 1): with many tasks at work, time
   * waits until each of them sleeps, none halfway through real I/O such as a write to the store.
   */
  readonly sleepers?: () => number;
}

const DEFAULT_MAX_WAKES = 1_000;
const DEFAULT_MAX_SIMULATED_MS = 3_600_000;

/**
 * Advances `clock` through every wait until `work` settles: the test plays the passing of time
 * for code that sleeps, without sleeping itself. Work that keeps sleeping past the limits (a
 * breaker that never half-opens, a retry loop without a deadline) fails with an error naming it
 * instead of spinning forever; the event loop gets a turn after every wake.
 */
export async function runToCompletion<T>(clock: ManualClock, work: Promise<T>, limits: RunLimits = {}): Promise<T> {
  const { what = 'the work', maxWakes = DEFAULT_MAX_WAKES, maxSimulatedMs = DEFAULT_MAX_SIMULATED_MS, sleepers = () => 1 } = limits;
  const startedAt = clock.monotonicNow();
  let wakes = 0;
  let settled = false;
  const done = work.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (;;) {
    await Promise.race([clock.whenSleeping(Math.max(1, sleepers())), done]);
    if (settled) return work;
    const elapsed = clock.monotonicNow() - startedAt;
    const next = clock.nextWakeIn() ?? 0;
    if (wakes >= maxWakes || elapsed + next > maxSimulatedMs) {
      throw new Error(
        `runToCompletion: ${what} did not finish within ${maxWakes} wakes and ${maxSimulatedMs} ms of simulated time: ` +
          `it woke ${wakes} times over ${elapsed} ms and still has ${clock.pendingSleeps} sleep(s) pending, the next in ${next} ms`,
      );
    }
    await clock.advanceToNextWake();
    wakes += 1;
    await nextMacrotask();
  }
}
