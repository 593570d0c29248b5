import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual_clock.js';
import { repeatUntilAborted } from '../../src/core/repeat.js';

describe('repeatUntilAborted', () => {
  it('waits first, then works every interval until the signal aborts, and resolves then', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const rounds: number[] = [];
    const loop = repeatUntilAborted(clock, 1_000, controller.signal, () => rounds.push(clock.monotonicNow()));
    await clock.whenSleeping();
    expect(rounds).toEqual([]);
    await clock.advance(3_500);
    expect(rounds).toEqual([1_000, 2_000, 3_000]);
    controller.abort();
    await expect(loop).resolves.toBeUndefined();
    expect(clock.pendingSleeps).toBe(0);
  });

  it('works at once with workFirst, and stops by itself once forMs has passed', async () => {
    const clock = new ManualClock();
    const rounds: number[] = [];
    const loop = repeatUntilAborted(clock, 1_000, new AbortController().signal, () => rounds.push(clock.monotonicNow()), { workFirst: true, forMs: 2_500 });
    expect(rounds).toEqual([0]);
    await clock.whenSleeping();
    await clock.advance(5_000);
    await loop;
    expect(rounds).toEqual([0, 1_000, 2_000]);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('waits for each round’s work to settle before the next wait begins', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    let release!: () => void;
    const rounds: number[] = [];
    const loop = repeatUntilAborted(clock, 100, controller.signal, async () => {
      rounds.push(clock.monotonicNow());
      if (rounds.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    await clock.advance(100);
    await clock.advance(500);
    expect(rounds).toEqual([100]);
    expect(clock.pendingSleeps).toBe(0);
    release();
    await clock.whenSleeping();
    await clock.advance(100);
    expect(rounds).toEqual([100, 700]);
    controller.abort();
    await loop;
  });

  it('does nothing when the signal has already aborted', async () => {
    const clock = new ManualClock();
    let rounds = 0;
    await repeatUntilAborted(clock, 10, AbortSignal.abort(), () => (rounds += 1), { workFirst: true });
    expect(rounds).toBe(0);
  });

  it('ends with the error of a round that throws', async () => {
    const clock = new ManualClock();
    const loop = repeatUntilAborted(clock, 10, new AbortController().signal, () => Promise.reject(new Error('lease lost')));
    const settled = expect(loop).rejects.toThrow('lease lost');
    await clock.advance(10);
    await settled;
  });
});
