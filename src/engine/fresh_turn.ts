import type { Message } from '../llm/protocol.js';
import type { ChatTurn, TurnBudgets } from './chat_turn.js';
import type { PayloadFieldName } from './turn_census.js';
import { encodeCheckpointState, type ReconstructedParts } from './turn_codec.js';
import type { InitialCheckpoint } from '../turn_state/turn_types.js';

/** What a turn starts from: the prompt and budgets of the configuration in force when it starts. */
export interface TurnDefaults {
  readonly systemPrompt: string;
  readonly budgets: TurnBudgets;
}

/** The persisted loop state of a turn that has done nothing yet: every counter at zero, every one-shot guard unused. */
function freshFields(defaults: TurnDefaults, recoveryDeadlineAt: number | null): Pick<ChatTurn, PayloadFieldName> {
  return {
    systemPrompt: defaults.systemPrompt,
    iteration: 0,
    toolCallsUsed: 0,
    budgets: defaults.budgets,
    emptyTurnRetried: false,
    continuationsUsed: 0,
    finalAnswerRequested: false,
    repeatedCalls: { counts: {}, warned: [] },
    recoveryDeadlineAt,
    model: null,
  };
}

/**
 * A turn that has done nothing yet, over `transcript` (the frozen history and the user's
 * message): every counter at zero and every one-shot guard unused.
 */
export function freshChatTurn(parts: ReconstructedParts, defaults: TurnDefaults, transcript: Message[], recoveryDeadlineAt: number | null = null): ChatTurn {
  return { ...parts, ...freshFields(defaults, recoveryDeadlineAt), transcript };
}

/**
 * What admission stores with a new turn (DESIGN §7.3), in its own transaction: the transcript
 * the turn starts from and the loop state of its first checkpoint, so that a turn is resumable
 * with the user's request from the moment it exists.
 */
export function initialCheckpoint(defaults: TurnDefaults, transcript: readonly Message[]): InitialCheckpoint {
  return { transcript: [...transcript], state: encodeCheckpointState(freshFields(defaults, null)) };
}
