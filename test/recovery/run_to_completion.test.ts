import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual_clock.js';
import { runToCompletion } from '../support/recovery_runtime.js';

describe('runToCompletion, the test driver of the manual clock', () => {
  const stops: AbortController[] = [];
  afterEach(() => {
    for (const stop of stops.splice(0)) stop.abort();
  });

  /** Work that sleeps `ms` again and again and never finishes, as a wait for a breaker that never half-opens would; stopped after the test. */
  async function sleepsForever(clock: ManualClock, ms: number): Promise<never> {
    const stop = new AbortController();
    stops.push(stop);
    for (;;) await clock.sleep(ms, stop.signal);
  }

  it("plays time through the work's sleeps and returns its value, or its error", async () => {
    const clock = new ManualClock();
    const signal = new AbortController().signal;
    const work = async (): Promise<string> => {
      await clock.sleep(5_000, signal);
      await clock.sleep(40_000, signal);
      return 'done';
    };
    expect(await runToCompletion(clock, work())).toBe('done');
    expect(clock.monotonicNow()).toBe(45_000);
    const failing = async (): Promise<never> => {
      await clock.sleep(1_000, signal);
      throw new Error('gave up');
    };
    await expect(runToCompletion(clock, failing())).rejects.toThrow('gave up');
  });

  it('fails, naming the work, once simulated time passes its limit', async () => {
    const clock = new ManualClock();
    const run = runToCompletion(clock, sleepsForever(clock, 30_000), { what: 'a generation behind a breaker that never half-opens', maxSimulatedMs: 120_000 });
    await expect(run).rejects.toThrow(
      'runToCompletion: a generation behind a breaker that never half-opens did not finish within 1000 wakes and ' +
        '120000 ms of simulated time: it woke 4 times over 120000 ms and still has 1 sleep(s) pending, the next in ' +
        '30000 ms',
    );
    expect(clock.monotonicNow()).toBe(120_000);
  });

  it('fails once it has woken the work as often as allowed, by default after 1,000 wakes and at most an hour', async () => {
    const clock = new ManualClock();
    await expect(runToCompletion(clock, sleepsForever(clock, 1))).rejects.toThrow(
      /^runToCompletion: the work did not finish within 1000 wakes and 3600000 ms of simulated time: it woke 1000 times over 1000 ms/,
    );
    const slow = new ManualClock();
    await expect(runToCompletion(slow, sleepsForever(slow, 600_000))).rejects.toThrow(/it woke 6 times over 3600000 ms and still has 1 sleep\(s\) pending, the next in 600000 ms$/);
    const few = new ManualClock();
    await expect(runToCompletion(few, sleepsForever(few, 1), { maxWakes: 3 })).rejects.toThrow(/within 3 wakes .*: it woke 3 times over 3 ms/);
  });
});
