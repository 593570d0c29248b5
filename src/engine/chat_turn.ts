import type { Logger } from '../core/logger.js';
import type { Message } from '../llm/protocol.js';
import type { Requester } from '../tools/permissions.js';
import type { Tool } from '../tools/tool.js';
import type { TurnIdentity } from '../turn_state/turn_types.js';
import type { TurnTrace } from './turn_trace.js';

/** The caps of one turn, fixed when it is admitted and kept through resumes: a restore never creates allowance. */
export interface TurnBudgets {
  readonly maxIterations: number;
  readonly maxToolCalls: number;
  readonly maxContinuations: number;
}

/**
 * How often each (tool, input) pair was proposed, keyed by the pair's fingerprint, and which
 * pairs were already warned about: the third proposal is warned once, the fourth is refused.
 */
export interface RepeatedCallTracker {
  readonly counts: Readonly<Record<string, number>>;
  readonly warned: readonly string[];
}

/**
 * The in-memory state of one turn (DESIGN §7.5). Every field is classified in the codec's census
 * as persisted (restored verbatim on resume) or reconstructed (rebuilt, with the reason): adding a
 * field here fails the build until it is classified.
 */
export interface ChatTurn {
  /** The store's id of the turn. */
  readonly turnId: string;
  /** The message the turn answers. */
  readonly identity: TurnIdentity;
  /** Who asked, with the roles that decide their tools. */
  readonly requester: Requester;
  /** The tools offered to the model: derived from the current catalog and permissions. */
  readonly tools: readonly Tool[];
  /** Aborted by /stop. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** This run's trace (DESIGN §10.3); none when the caller traces nothing. */
  readonly trace?: TurnTrace;

  /** The system prompt in force for this turn (it may have been rebound since admission). */
  systemPrompt: string;
  /** Every message of the turn, starting with the frozen history it was admitted with. */
  transcript: Message[];
  /** Model calls made so far; also the step number of the last model turn. */
  iteration: number;
  /** Tool calls charged so far, refused ones excluded, uncertain reads re-run charged once. */
  toolCallsUsed: number;
  budgets: TurnBudgets;
  /** The one retry after an empty model turn has been used. */
  emptyTurnRetried: boolean;
  /** Continuations of replies cut off by the token limit. */
  continuationsUsed: number;
  /** The model was told once to answer without tools, one step before the iteration cap. */
  finalAnswerRequested: boolean;
  repeatedCalls: RepeatedCallTracker;
  /** The absolute wall time the current generation's recovery budget runs out; null before the first. */
  recoveryDeadlineAt: number | null;
  /** The model (its configured name) that wrote the latest model turn; null before the first, or when it was the first model of the turn's route and no checkpoint said so yet. */
  model: string | null;
}
