import { randomUUID } from 'node:crypto';

/**
 * The source of identity for everything below `src/main.ts` (DESIGN §3): lease tokens, turn and
 * operation ids, probe tokens. Tests use {@link SequentialIds} so identities are predictable.
 */
export interface IdFactory {
  /** A new identifier, unique for the life of the data it labels. */
  newId(): string;
}

/** Random version-4 UUIDs. */
export class RandomIds implements IdFactory {
  newId(): string {
    return randomUUID();
  }
}

/** `prefix-1`, `prefix-2`, …: predictable identities for tests. */
export class SequentialIds implements IdFactory {
  #next = 1;

  constructor(private readonly prefix = 'id') {}

  newId(): string {
    return `${this.prefix}-${this.#next++}`;
  }
}
