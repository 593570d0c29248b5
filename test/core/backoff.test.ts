import { describe, expect, it } from 'vitest';
import { backoffCeiling, backoffDelay, nextBackoff, type BackoffSchedule } from '../../src/core/backoff.js';
import { SequenceRandom } from '../support/sequence_random.js';

const doubling: BackoffSchedule = { initialMs: 1_000, factor: 2, capMs: 30_000, jitter: 'none' };

describe('backoff schedule', () => {
  it('grows by the factor from the initial wait and stops growing at the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((retry) => backoffDelay(doubling, retry))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect(backoffCeiling({ ...doubling, factor: 3 }, 2)).toBe(9_000);
  });

  it('treats a negative retry as the first', () => {
    expect(backoffCeiling(doubling, -1)).toBe(1_000);
  });

  it('draws a full-jitter wait uniformly below the ceiling, rounded down', () => {
    const jittered: BackoffSchedule = { ...doubling, jitter: 'full' };
    const random = new SequenceRandom([0, 0.5, 0.9999]);
    expect([backoffDelay(jittered, 3, random), backoffDelay(jittered, 3, random), backoffDelay(jittered, 3, random)]).toEqual([0, 4_000, 7_999]);
  });

  it('needs a source of randomness for full jitter', () => {
    expect(() => backoffDelay({ ...doubling, jitter: 'full' }, 0)).toThrow(TypeError);
  });

  it('fails loudly on a jitter mode it does not know', () => {
    expect(() => backoffDelay({ ...doubling, jitter: 'half' as never }, 0)).toThrow('unexpected value "half"');
  });

  it('offers the next wait only while it ends within the deadline', () => {
    const bounded: BackoffSchedule = { ...doubling, deadlineMs: 10_000 };
    expect(nextBackoff(bounded, 2, 6_000)).toBe(4_000);
    expect(nextBackoff(bounded, 2, 6_001)).toBeUndefined();
    expect(nextBackoff(doubling, 20, 1e9)).toBe(30_000);
  });
});
