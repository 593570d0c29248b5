import type { Random } from '../../src/core/random.js';

/** Returns the given values in turn, cycling: reproducible jitter for tests. */
export class SequenceRandom implements Random {
  #index = 0;

  constructor(private readonly values: readonly number[]) {
    if (values.length === 0 || values.some((v) => !(v >= 0 && v < 1))) {
      throw new RangeError('SequenceRandom needs at least one value, each in [0, 1)');
    }
  }

  next(): number {
    const value = this.values[this.#index % this.values.length] ?? 0;
    this.#index += 1;
    return value;
  }
}
