import type { Message } from '../llm/protocol.js';
import type { ChatTurn, TurnBudgets } from './chat_turn.js';
import type { ReconstructedParts } from './turn_codec.js';

/** What a turn starts from: the prompt and budgets of the configuration in force when it starts. */
export interface TurnDefaults {
  readonly systemPrompt: string;
  readonly budgets: TurnBudgets;
}

/**
 * A turn that has done nothing yet, over `transcript` (the frozen history and the user's
 * message): every counter at zero and every one-shot guard unused.
 */
export function freshChatTurn(parts: ReconstructedParts, defaults: TurnDefaults, transcript: Message[], recoveryDeadlineAt: number | null = null): ChatTurn {
  return {
    ...parts,
    systemPrompt: defaults.systemPrompt,
    transcript,
    iteration: 0,
    toolCallsUsed: 0,
    budgets: defaults.budgets,
    emptyTurnRetried: false,
    continuationsUsed: 0,
    finalAnswerRequested: false,
    repeatedCalls: { counts: {}, warned: [] },
    recoveryDeadlineAt,
  };
}
