import { isStaleTurnError, isTurnStateUnavailable } from '../turn_state/errors.js';
import type { OpRecord } from '../turn_state/ledger_types.js';
import type { ReplyAuthor } from '../turn_state/reply_types.js';
import type { ChatTurn } from './chat_turn.js';
import { isSimulatedCrash } from './fault_points.js';
import { isShutdownReason } from './shutdown_reason.js';
import type { DoneCall, TurnLimitHit } from './turn_meter.js';

/** Why a turn failed; each one is told to the user in its own words. */
export const FAILURE_REASONS = ['provider_auth', 'provider_request', 'provider_quota', 'provider_rate_limit', 'empty_model_turn', 'iteration_limit', 'store_unavailable', 'internal_error'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** A call whose effect nobody can know, as people name it (DESIGN §9.1): it waits for an operator's verdict. */
export interface AwaitedCall {
  readonly op: OpRecord;
  /** Its call id, or `STEP:CALL` where the id occurs in two steps of the turn. */
  readonly label: string;
}

/**
 * What the loop computed; the terminal writer turns it into the one status change, lease release
 * and user notice (DESIGN §8). `fenced`: the lease was lost, so the turn belongs to someone else
 * and nothing may touch it.
 */
export type TurnOutcome =
  /** `writtenBy`: which model wrote the reply, for a turn that had fallback models to go on with. */
  | { readonly kind: 'completed'; readonly reply: string; readonly writtenBy?: ReplyAuthor }
  | { readonly kind: 'failed'; readonly reason: FailureReason; readonly detail: string }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'suspended'; readonly cause: 'capacity' | 'unreachable' | 'shutdown'; readonly detail: string }
  | { readonly kind: 'needs_manual_resolution'; readonly calls: readonly AwaitedCall[] }
  /** Calls that wait for a person's approval before they run (DESIGN §9.2). */
  | { readonly kind: 'awaiting_approval'; readonly calls: readonly AwaitedCall[] }
  /** A per-turn limit was reached before the next model call (DESIGN §10.1): `done` is the work it keeps. */
  | { readonly kind: 'limited'; readonly limit: TurnLimitHit; readonly done: readonly DoneCall[] }
  | { readonly kind: 'fenced'; readonly detail: string };

/** The outcome an error thrown inside a turn stands for; a SimulatedCrash is rethrown untouched. */
export function outcomeOfError(error: unknown, turn: ChatTurn): TurnOutcome {
  if (isSimulatedCrash(error)) throw error;
  if (isStaleTurnError(error)) return { kind: 'fenced', detail: error.message };
  if (isTurnStateUnavailable(error)) return { kind: 'failed', reason: 'store_unavailable', detail: error.message };
  turn.logger.error({ err: error }, 'the turn failed unexpectedly');
  return { kind: 'failed', reason: 'internal_error', detail: error instanceof Error ? error.message : String(error) };
}

/** A stopped turn: cancelled by /stop, or suspended with its work kept when the program shuts down. */
export function stopped(turn: ChatTurn): TurnOutcome {
  return isShutdownReason(turn.signal.reason) ? { kind: 'suspended', cause: 'shutdown', detail: 'shutdown' } : { kind: 'cancelled' };
}
