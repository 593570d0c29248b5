import { marked } from '../core/marked.js';

/** Why a generation stopped trying. */
export const GIVE_UP_REASONS = ['deadline', 'cancelled', 'non_retryable'] as const;
export type GiveUpReason = (typeof GIVE_UP_REASONS)[number];

const GIVE_UP_ERROR = marked<RecoveryGiveUpError>('RecoveryGiveUpError');

/** A generation gave up: `reason` says why, `lastError` is the last failure it saw. */
export class RecoveryGiveUpError extends Error {
  override readonly name = 'RecoveryGiveUpError';

  constructor(
    readonly reason: GiveUpReason,
    /** The last error an attempt (or the breaker) raised; `undefined` when cancelled before any. */
    readonly lastError: unknown,
    /** How many calls reached the provider. */
    readonly attempts: number,
    /** Monotonic milliseconds from the start of the generation. */
    readonly elapsedMs: number,
  ) {
    super(`model call gave up (${reason}) after ${attempts} attempt${attempts === 1 ? '' : 's'}${lastError instanceof Error ? `: ${lastError.message}` : ''}`, {
      cause: lastError,
    });
    GIVE_UP_ERROR.mark(this);
  }
}

/** Recognises a {@link RecoveryGiveUpError}, even from another copy of this module. */
export function isRecoveryGiveUpError(error: unknown): error is RecoveryGiveUpError {
  return GIVE_UP_ERROR.is(error);
}
