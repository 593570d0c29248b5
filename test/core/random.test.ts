import { describe, expect, it } from 'vitest';
import { SystemRandom } from '../../src/core/random.js';
import { SequenceRandom } from '../support/sequence_random.js';

describe('Random', () => {
  it('repeats a fixed sequence for reproducible jitter', () => {
    const random = new SequenceRandom([0.1, 0.9]);
    expect([random.next(), random.next(), random.next()]).toEqual([0.1, 0.9, 0.1]);
  });

  it('refuses a sequence that is empty or leaves [0, 1)', () => {
    expect(() => new SequenceRandom([])).toThrow(RangeError);
    expect(() => new SequenceRandom([1])).toThrow(RangeError);
    expect(() => new SequenceRandom([-0.1])).toThrow(RangeError);
  });

  it('draws system randomness in [0, 1)', () => {
    const random = new SystemRandom();
    const draws = Array.from({ length: 1_000 }, () => random.next());
    expect(draws.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(new Set(draws).size).toBeGreaterThan(990);
  });
});
