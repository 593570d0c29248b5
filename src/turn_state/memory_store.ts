/** Whose notes: one person's (`user`) or everyone's in one channel (`channel`). */
export const MEMORY_SCOPES = ['user', 'channel'] as const;
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

/** The longest note kept, in characters (Unicode code points, as JSON Schema's `maxLength` counts them). */
export const MAX_NOTE_LENGTH = 2000;

/** One kept note. */
export interface MemoryNote {
  readonly text: string;
  /** Wall time it was stored, in epoch milliseconds (from the Clock). */
  readonly createdAt: number;
}

/** A note to keep. `key` is the op's idempotency key: a second store under it stores nothing. */
export interface RememberRequest {
  readonly scope: MemoryScope;
  /** `source:userId` for `user` scope, `source:channelId` for `channel` scope. */
  readonly ownerId: string;
  readonly text: string;
  readonly key: string;
}

/** What a remember came to: stored now, stored before under the same key, or refused. */
export type RememberResult =
  | { readonly kind: 'stored'; readonly note: MemoryNote }
  | { readonly kind: 'already_stored'; readonly note: MemoryNote }
  | { readonly kind: 'too_long'; readonly length: number; readonly max: number };

/** Which notes to look up; `query` keeps only notes containing it, ignoring case. */
export interface RecallRequest {
  readonly scope: MemoryScope;
  readonly ownerId: string;
  readonly query?: string;
  readonly limit: number;
}

/** The notes found, most recent first; `more` when further notes matched beyond the limit. */
export interface RecallResult {
  readonly notes: readonly MemoryNote[];
  readonly more: boolean;
}

/**
 * Notes kept per user or per channel (DESIGN §2, §7.1). Each note is stored under the idempotency
 * key of the call that made it, so a call that is re-sent after a crash stores once. "Most recent"
 * is the order notes were stored in, which a wall-clock correction cannot reorder; the stored wall
 * time is what a note is dated by.
 */
export interface MemoryStore {
  /** Keeps a note unless one is already stored under `key`; refuses a note over {@link MAX_NOTE_LENGTH}. */
  remember(request: RememberRequest): Promise<RememberResult>;
  /**
   * The owner's notes, most recent first, at most `limit`, optionally only those containing `query`.
   * Rejects with a RangeError when `limit` is not a positive integer.
   */
  recall(request: RecallRequest): Promise<RecallResult>;
}

/** Characters as a person (and JSON Schema) counts them: code points, not UTF-16 units. */
export function noteLength(text: string): number {
  return [...text].length;
}

/** Case-folds for matching: compatibility-normalised, and upper-then-lower so that ß matches SS. */
export function foldForMatch(text: string): string {
  return text.normalize('NFKC').toUpperCase().toLowerCase();
}
