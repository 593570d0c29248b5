import type { IdFactory } from '../../src/core/ids.js';

/** `prefix-1`, `prefix-2`, …: predictable identities for tests. */
export class SequentialIds implements IdFactory {
  #next = 1;

  constructor(private readonly prefix = 'id') {}

  newId(): string {
    return `${this.prefix}-${this.#next++}`;
  }
}
