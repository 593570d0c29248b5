import { describe, expect, it } from 'vitest';
import { SystemClock } from '../../src/core/system_clock.js';

describe('SystemClock', () => {
  const clock = new SystemClock();

  it('reads wall time in epoch milliseconds and monotonic time that does not go backwards', () => {
    const wall = clock.now();
    expect(Math.abs(wall - new Date().getTime())).toBeLessThan(1_000);
    const first = clock.monotonicNow();
    expect(clock.monotonicNow()).toBeGreaterThanOrEqual(first);
  });

  it('sleeps for real and then resolves', async () => {
    const before = clock.monotonicNow();
    await clock.sleep(20, new AbortController().signal);
    expect(clock.monotonicNow() - before).toBeGreaterThanOrEqual(19);
  });

  it('rejects a long sleep as soon as its signal aborts', async () => {
    const controller = new AbortController();
    const sleep = clock.sleep(60_000, controller.signal);
    controller.abort();
    await expect(sleep).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects at once with a non-error abort reason turned into an AbortError', async () => {
    const controller = new AbortController();
    controller.abort('user typed /stop');
    await expect(clock.sleep(60_000, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });
});
