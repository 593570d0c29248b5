import type { Message } from '../llm/protocol.js';
import type { ChatTurn } from './chat_turn.js';
import type { TurnDurability } from './durability.js';
import { generate, type EngineDeps } from './generation.js';
import { guardMessage, guardOf, type GuardKind } from './guard_messages.js';
import { encodeCheckpointState } from './turn_codec.js';
import type { TurnLog } from './turn_log.js';
import { outcomeOfError, stopped, type TurnOutcome } from './turn_outcome.js';
import { toolStep } from './tool_step.js';
import { callsDone } from './turn_meter.js';

/**
 * The tool loop of one turn, from the state it is in to its outcome (DESIGN §7.3, §7.4). It is
 * the one path for fresh and resumed turns: each model turn comes from `log` while the log
 * holds one, and from the model after that, and every counter rule below applies to both.
 * `firstBudgetMs` bounds the first model call (a resumed turn has what is left of its persisted
 * deadline). It never ends the turn itself: the terminal writer does. A SimulatedCrash passes
 * through untouched, as a killed process would leave everything.
 */
export async function runLoop(turn: ChatTurn, log: TurnLog, durability: TurnDurability, deps: EngineDeps, firstBudgetMs?: number): Promise<TurnOutcome> {
  try {
    return await loop(turn, log, durability, deps, firstBudgetMs);
  } catch (error) {
    return outcomeOfError(error, turn);
  }
}

async function loop(turn: ChatTurn, log: TurnLog, durability: TurnDurability, deps: EngineDeps, firstBudgetMs: number | undefined): Promise<TurnOutcome> {
  let budgetMs = firstBudgetMs;
  for (;;) {
    if (turn.signal.aborted) return stopped(turn);
    if (turn.iteration >= turn.budgets.maxIterations) return { kind: 'failed', reason: 'iteration_limit', detail: `the turn used all ${turn.budgets.maxIterations} model calls` };
    if (turn.iteration === turn.budgets.maxIterations - 1 && !turn.finalAnswerRequested) {
      turn.finalAnswerRequested = true;
      await injectGuard(turn, log, durability, deps, 'finalAnswer');
    }
    const logged = log.nextModelTurn(turn.transcript);
    let response = logged;
    if (response === undefined) {
      const limit = await deps.meter?.reached(turn);
      if (limit !== undefined) return { kind: 'limited', limit, done: callsDone(turn.transcript) };
      const generated = await generate(turn, durability, deps, budgetMs ?? deps.recovery.settings.deadlineMs);
      budgetMs = undefined;
      if (generated.kind === 'outcome') return generated.outcome;
      response = generated.response;
      await noteModel(turn, durability, deps, generated.model.model);
    }
    turn.iteration += 1;
    const assistant: Message = { role: 'assistant', content: response.content };
    const text = response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');

    if (response.content.some((block) => block.type === 'tool_use')) {
      const outcome = await toolStep(turn, durability, deps, log, logged !== undefined, assistant);
      if (outcome !== undefined) return outcome;
      continue;
    }
    if (text.trim() === '') {
      if (turn.emptyTurnRetried) return { kind: 'failed', reason: 'empty_model_turn', detail: 'the model answered with nothing, twice' };
      turn.emptyTurnRetried = true;
      await injectGuard(turn, log, durability, deps, 'emptyTurn');
      continue;
    }
    if (response.stopReason === 'max_tokens' && turn.continuationsUsed < turn.budgets.maxContinuations) {
      turn.continuationsUsed += 1;
      turn.transcript.push(assistant);
      await injectGuard(turn, log, durability, deps, 'continueCutOff', [assistant]);
      continue;
    }
    if (logged === undefined) {
      await durability.recordModelTurn(turn.iteration, assistant, []);
      turn.transcript.push(assistant);
      deps.faults.reach('after_final_reply', turn.iteration);
    } else {
      turn.transcript.push(assistant);
    }
    const reply = finalReply(turn.transcript);
    if ((deps.fallbacks ?? []).length === 0) return { kind: 'completed', reply };
    const model = turn.model ?? deps.provider.model;
    return { kind: 'completed', reply, writtenBy: { model, fallback: model !== deps.provider.model } };
  }
}

/**
 * Records which model wrote the step just generated. A step written by another model than the
 * last checkpoint names (none names the turn's first model) is checkpointed before it is logged,
 * so that a reply taken from the log after a crash still says who wrote it. A turn that never
 * changes model writes nothing more.
 */
async function noteModel(turn: ChatTurn, durability: TurnDurability, deps: EngineDeps, model: string): Promise<void> {
  const before = turn.model ?? deps.provider.model;
  turn.model = model;
  if (model !== before) await durability.checkpoint([], encodeCheckpointState(turn), false);
}

/**
 * "Guard checkpointed": a guard's message and its consumed flag are durable before the next model call. A guard
 * the log already holds is taken from it, not written again.
 */
async function injectGuard(turn: ChatTurn, log: TurnLog, durability: TurnDurability, deps: EngineDeps, kind: GuardKind, before: Message[] = []): Promise<void> {
  const logged = log.takeGuard(kind);
  const message = logged ?? guardMessage(kind);
  turn.transcript.push(message);
  if (logged !== undefined) return;
  await durability.checkpoint([...before, message], encodeCheckpointState(turn), before.length > 0);
  deps.faults.reach('after_wi5', turn.iteration);
}

/** The reply: the last assistant text, after the parts of it that were cut off and continued. */
export function finalReply(transcript: readonly Message[]): string {
  const parts: string[] = [];
  for (let i = transcript.length - 1; i >= 0; i--) {
    const message = transcript[i];
    if (message?.role !== 'assistant') break;
    parts.unshift(message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(''));
    const before = transcript[i - 1];
    if (before === undefined || guardOf(before) !== 'continueCutOff') break;
    i -= 1;
  }
  return parts.join('');
}
