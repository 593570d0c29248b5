import { randomUUID } from 'node:crypto';

/**
 * The source of identity for everything below `src/main.ts` (DESIGN §3): lease tokens, turn and
 * operation ids, probe tokens. Tests use sequential ids (test/support) so identities are predictable.
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
