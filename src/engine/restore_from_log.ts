import { toolUses, type Message } from '../llm/protocol.js';
import type { OpRecord } from '../turn_state/ledger_types.js';
import type { ResumableTurn } from '../turn_state/turn_store.js';
import { planBatch } from './batch_plan.js';
import type { ChatTurn, TurnBudgets } from './chat_turn.js';
import type { TurnDurability } from './durability.js';
import { guardOf } from './guard_messages.js';
import type { RunDeps } from './run_turn.js';
import { endTurn, type TurnEnding } from './terminal_writer.js';
import { InvalidCheckpointError, restoreChatTurn, validateTranscript, type ReconstructedParts } from './turn_codec.js';
import { answerBatch, finalReply, outcomeOfError, runLoop } from './tool_loop.js';
import type { TurnOutcome } from './turn_outcome.js';

/** What a turn starts from when no checkpoint is left: the current configuration's prompt and budgets. */
export interface FreshDefaults {
  readonly systemPrompt: string;
  readonly budgets: TurnBudgets;
}

/**
 * Restores a turn from its latest checkpoint (or, with none left, from a fresh state) plus every
 * transcript row written after it (DESIGN §7.4). Validation is complete before anything else.
 * @throws {InvalidCheckpointError} when the payload or the transcript is not one this engine wrote.
 */
export function restoreFromLog(resumable: ResumableTurn, reconstructed: ReconstructedParts, defaults: FreshDefaults): { turn: ChatTurn; after: Message[] } {
  const problems = validateTranscript(resumable.transcript);
  if (problems.length > 0) throw new InvalidCheckpointError(problems);
  const rows = [...resumable.transcript];
  const { checkpoint } = resumable;
  if (checkpoint !== undefined) {
    if (checkpoint.transcriptLength > rows.length) throw new InvalidCheckpointError([`checkpoint covers ${checkpoint.transcriptLength} rows but the transcript has ${rows.length}`]);
    const turn = restoreChatTurn(checkpoint.state, rows.slice(0, checkpoint.transcriptLength), reconstructed);
    // The row's deadline is the latest one written; the checkpoint's may be older.
    turn.recoveryDeadlineAt = resumable.turn.recoveryDeadlineAt ?? turn.recoveryDeadlineAt;
    return { turn, after: rows.slice(checkpoint.transcriptLength) };
  }
  // Without a checkpoint the turn's own work begins after its user message: the last user message that no guard injected.
  const start = rows.findLastIndex((message) => message.role === 'user' && guardOf(message) === undefined) + 1;
  const turn: ChatTurn = {
    ...reconstructed,
    systemPrompt: defaults.systemPrompt,
    transcript: rows.slice(0, start),
    iteration: 0,
    toolCallsUsed: 0,
    budgets: defaults.budgets,
    emptyTurnRetried: false,
    continuationsUsed: 0,
    finalAnswerRequested: false,
    repeatedCalls: { counts: {}, warned: [] },
    recoveryDeadlineAt: resumable.turn.recoveryDeadlineAt,
  };
  return { turn, after: rows.slice(start) };
}

/**
 * Continues an interrupted turn (DESIGN §7.4, §9): the rows after the checkpoint are adopted in
 * order — each logged model turn counted, each answered batch charged again exactly as the loop
 * charged it —, the newest batch's unanswered calls are answered from the ledger or run now, a
 * logged final reply finishes the turn without a model call, and otherwise the loop goes on with
 * what is left of the persisted recovery deadline.
 */
export async function continueTurn(turn: ChatTurn, after: readonly Message[], ops: readonly OpRecord[], durability: TurnDurability, deps: RunDeps): Promise<TurnEnding> {
  const stopBeating = new AbortController();
  const beating = durability.keepAlive(deps.clock, deps.heartbeatMs, stopBeating.signal);
  try {
    const adopted = await adopt(turn, after, ops, durability, deps).catch((error: unknown) => outcomeOfError(error, turn));
    const remaining = turn.recoveryDeadlineAt === null ? undefined : turn.recoveryDeadlineAt - deps.clock.now();
    const outcome = adopted ?? (await runLoop(turn, durability, { ...deps, ...(remaining === undefined ? {} : { firstGenerationBudgetMs: remaining }) }));
    return await endTurn(outcome, durability);
  } finally {
    stopBeating.abort();
    await beating;
  }
}

/** Replays the logged rows; returns an outcome when the log already decides the turn. */
async function adopt(turn: ChatTurn, after: readonly Message[], ops: readonly OpRecord[], durability: TurnDurability, deps: RunDeps): Promise<TurnOutcome | undefined> {
  for (let i = 0; i < after.length; i++) {
    const message = after[i] as Message;
    const next = after[i + 1];
    const guard = guardOf(message);
    if (guard !== undefined) {
      if (guard === 'emptyTurn') {
        turn.iteration += 1;
        turn.emptyTurnRetried = true;
      } else if (guard === 'finalAnswer') turn.finalAnswerRequested = true;
      turn.transcript.push(message);
      continue;
    }
    if (message.role !== 'assistant') {
      turn.transcript.push(message);
      continue;
    }
    turn.iteration += 1;
    const uses = toolUses(message);
    const stepOps = ops.filter((op) => op.step === turn.iteration);
    turn.transcript.push(message);
    if (uses.length === 0) {
      if (next !== undefined && guardOf(next) === 'continueCutOff') {
        turn.continuationsUsed += 1;
        turn.transcript.push(next);
        i += 1;
        continue;
      }
      return { kind: 'completed', reply: finalReply(turn.transcript) };
    }
    if (next !== undefined && next.role === 'tool') {
      // An answered batch: charge it as the loop did. A bounced batch recorded no ops and charged nothing.
      if (stepOps.length > 0) planBatch(turn, uses);
      continue;
    }
    const outcome = await answerBatch(turn, durability, deps, turn.iteration, uses, stepOps);
    if (outcome !== undefined) return outcome;
  }
  return undefined;
}
