import { describe, expect, it } from 'vitest';
import { ManualClock } from './manual_clock.js';

function track(promise: Promise<void>): { readonly settled: () => string } {
  let state = 'pending';
  promise.then(
    () => (state = 'resolved'),
    (error: unknown) => (state = `rejected: ${error instanceof Error ? error.name : String(error)}`),
  );
  return { settled: () => state };
}

describe('ManualClock', () => {
  it('starts where it is told and moves only when advanced', async () => {
    const clock = new ManualClock({ wallStart: Date.UTC(2026, 10, 29, 12), monotonicStart: 5_000 });
    expect(clock.now()).toBe(Date.UTC(2026, 10, 29, 12));
    expect(clock.monotonicNow()).toBe(5_000);
    await clock.advance(1_500);
    expect(clock.now()).toBe(Date.UTC(2026, 10, 29, 12) + 1_500);
    expect(clock.monotonicNow()).toBe(6_500);
  });

  it('wakes a sleep exactly when its deadline is reached, not before', async () => {
    const clock = new ManualClock();
    const sleep = track(clock.sleep(1_000, new AbortController().signal));
    await clock.advance(999);
    expect(sleep.settled()).toBe('pending');
    expect(clock.pendingSleeps).toBe(1);
    expect(clock.nextWakeIn()).toBe(1);
    await clock.advance(1);
    expect(sleep.settled()).toBe('resolved');
    expect(clock.pendingSleeps).toBe(0);
    expect(clock.nextWakeIn()).toBeUndefined();
  });

  it('wakes a loop that sleeps again inside one advance at each of its instants', async () => {
    const clock = new ManualClock();
    const woke: number[] = [];
    const loop = (async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(100, new AbortController().signal);
        woke.push(clock.monotonicNow());
      }
    })();
    await clock.advance(350);
    await loop;
    expect(woke).toEqual([100, 200, 300]);
    expect(clock.monotonicNow()).toBe(350);
  });

  it('wakes sleeps in deadline order, and equal deadlines in the order they were made', async () => {
    const clock = new ManualClock();
    const order: string[] = [];
    const signal = new AbortController().signal;
    const all = Promise.all([
      clock.sleep(300, signal).then(() => order.push('c')),
      clock.sleep(100, signal).then(() => order.push('a')),
      clock.sleep(200, signal).then(() => order.push('b1')),
      clock.sleep(200, signal).then(() => order.push('b2')),
    ]);
    await clock.advance(1_000);
    await all;
    expect(order).toEqual(['a', 'b1', 'b2', 'c']);
  });

  it('rejects a sleep with the abort reason the moment its signal aborts, and forgets it', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const sleep = clock.sleep(1_000, controller.signal);
    expect(clock.pendingSleeps).toBe(1);
    const reason = new Error('stop requested');
    controller.abort(reason);
    await expect(sleep).rejects.toBe(reason);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('rejects at once with an AbortError when the signal has already aborted', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    controller.abort();
    await expect(clock.sleep(10, controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(clock.pendingSleeps).toBe(0);
  });

  it('resolves a zero or negative sleep without waiting for time to pass', async () => {
    const clock = new ManualClock();
    const signal = new AbortController().signal;
    await clock.sleep(0, signal);
    await clock.sleep(-5, signal);
    expect(clock.monotonicNow()).toBe(0);
  });

  it('tells a test when the code under test has started sleeping', async () => {
    const clock = new ManualClock();
    const signal = new AbortController().signal;
    const twoSleeping = track(clock.whenSleeping(2));
    void clock.sleep(50, signal);
    await Promise.resolve();
    expect(twoSleeping.settled()).toBe('pending');
    void clock.sleep(70, signal);
    await clock.whenSleeping(2);
    expect(twoSleeping.settled()).toBe('resolved');
    expect(await clock.advanceToNextWake()).toBe(50);
    expect(await clock.advanceToNextWake()).toBe(20);
    expect(clock.monotonicNow()).toBe(70);
  });

  it('jumps the wall clock alone when it is set, leaving monotonic time and sleeps alone', async () => {
    const clock = new ManualClock({ wallStart: 1_000_000, monotonicStart: 0 });
    const sleep = track(clock.sleep(100, new AbortController().signal));
    clock.setWallTime(5_000);
    await clock.advance(50);
    expect(clock.now()).toBe(5_050);
    expect(clock.monotonicNow()).toBe(50);
    expect(sleep.settled()).toBe('pending');
  });

  it('refuses to go backwards or to advance to a sleep that does not exist', async () => {
    const clock = new ManualClock();
    await expect(clock.advance(-1)).rejects.toThrow(RangeError);
    await expect(clock.advanceToNextWake()).rejects.toThrow(/no sleep is pending/);
  });
});
