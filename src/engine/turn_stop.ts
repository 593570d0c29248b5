import { isStaleTurnError, isTurnStateUnavailable } from '../turn_state/errors.js';
import type { ChatTurn } from './chat_turn.js';
import { isSimulatedCrash } from './fault_points.js';
import { isShutdownReason } from './shutdown_reason.js';
import type { TurnOutcome } from './turn_outcome.js';

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
