import type { Clock } from '../core/clock.js';
import { isLLMErrorOfKind } from '../llm/errors.js';
import { toolUses, type GenerateRequest, type GenerateResponse, type Message, type ToolUseBlock } from '../llm/protocol.js';
import type { LLMProvider, StreamEvent } from '../llm/provider.js';
import { assertToolPairs } from '../llm/tool_pairs.js';
import { isCircuitOpenError } from '../recovery/circuit_open_error.js';
import { generateWithRecovery, type RecoveryRuntime } from '../recovery/generate_with_recovery.js';
import { isRecoveryGiveUpError } from '../recovery/give_up_error.js';
import { toolDefinitions } from '../tools/catalog.js';
import { isLedgerIntentError, isStaleTurnError, isTurnStateUnavailable } from '../turn_state/errors.js';
import type { OpRecord } from '../turn_state/ledger_types.js';
import { planBatch } from './batch_plan.js';
import { runBatch } from './batch_runner.js';
import type { ChatTurn } from './chat_turn.js';
import type { TurnDurability } from './durability.js';
import { isSimulatedCrash, type FaultInjector } from './fault_points.js';
import { guardMessage, guardOf } from './guard_messages.js';
import { isShutdownReason } from './shutdown_reason.js';
import { encodeCheckpointState } from './turn_codec.js';
import type { TurnOutcome } from './turn_outcome.js';

export interface EngineDeps {
  readonly provider: LLMProvider;
  readonly recovery: RecoveryRuntime;
  readonly clock: Clock;
  readonly faults: FaultInjector;
  /** Overrides the provider's configured max tokens per reply. */
  readonly maxTokens?: number;
  /** The budget of this run's first generation: what a resumed turn has left of its persisted deadline. */
  readonly firstGenerationBudgetMs?: number;
  readonly onStreamEvent?: (event: StreamEvent) => void;
}

export const NO_FAULTS: FaultInjector = { reach: () => undefined };

/**
 * The tool loop of one turn, from the state it is in (fresh, or restored by a continuation) to
 * its outcome. It never ends the turn itself: the terminal writer does. A SimulatedCrash passes
 * through untouched, as a killed process would leave everything.
 */
export async function runLoop(turn: ChatTurn, durability: TurnDurability, deps: EngineDeps): Promise<TurnOutcome> {
  try {
    return await loop(turn, durability, deps);
  } catch (error) {
    return outcomeOfError(error, turn);
  }
}

/** The outcome an error thrown inside a turn stands for; a SimulatedCrash is rethrown untouched. */
export function outcomeOfError(error: unknown, turn: ChatTurn): TurnOutcome {
  if (isSimulatedCrash(error)) throw error;
  if (isStaleTurnError(error)) return { kind: 'fenced', detail: error.message };
  if (isTurnStateUnavailable(error)) return { kind: 'failed', reason: 'store_unavailable', detail: error.message };
  turn.logger.error({ err: error }, 'the turn failed unexpectedly');
  return { kind: 'failed', reason: 'internal_error', detail: error instanceof Error ? error.message : String(error) };
}

async function loop(turn: ChatTurn, durability: TurnDurability, deps: EngineDeps): Promise<TurnOutcome> {
  let firstBudgetMs = deps.firstGenerationBudgetMs;
  for (;;) {
    if (turn.signal.aborted) return stopped(turn);
    if (turn.iteration >= turn.budgets.maxIterations) return { kind: 'failed', reason: 'iteration_limit', detail: `the turn used all ${turn.budgets.maxIterations} model calls` };
    if (turn.iteration === turn.budgets.maxIterations - 1 && !turn.finalAnswerRequested) {
      turn.finalAnswerRequested = true;
      await injectGuard(turn, durability, deps, 'finalAnswer', 'after_wi5');
    }
    const generated = await generate(turn, durability, deps, firstBudgetMs ?? deps.recovery.settings.deadlineMs);
    firstBudgetMs = undefined;
    if (generated.kind === 'outcome') return generated.outcome;
    const { response } = generated;
    turn.iteration += 1;
    const step = turn.iteration;
    const assistant: Message = { role: 'assistant', content: response.content };
    const uses = toolUses(assistant);
    const text = response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');

    if (uses.length > 0) {
      const outcome = await toolStep(turn, durability, deps, step, assistant, uses);
      if (outcome !== undefined) return outcome;
      continue;
    }
    if (text.trim() === '') {
      if (turn.emptyTurnRetried) return { kind: 'failed', reason: 'empty_model_turn', detail: 'the model answered with nothing, twice' };
      turn.emptyTurnRetried = true;
      await injectGuard(turn, durability, deps, 'emptyTurn', 'after_wi5');
      continue;
    }
    if (response.stopReason === 'max_tokens' && turn.continuationsUsed < turn.budgets.maxContinuations) {
      turn.continuationsUsed += 1;
      turn.transcript.push(assistant);
      await injectGuard(turn, durability, deps, 'continueCutOff', 'after_wi5', [assistant]);
      continue;
    }
    await durability.recordModelTurn(step, assistant, []);
    turn.transcript.push(assistant);
    deps.faults.reach('after_final_reply', step);
    return { kind: 'completed', reply: finalReply(turn.transcript) };
  }
}

/** Persists the absolute recovery deadline (DESIGN §7.3), then asks the model within it. */
async function generate(
  turn: ChatTurn,
  durability: TurnDurability,
  deps: EngineDeps,
  budgetMs: number,
): Promise<{ kind: 'response'; response: GenerateResponse } | { kind: 'outcome'; outcome: TurnOutcome }> {
  assertToolPairs(turn.transcript);
  turn.recoveryDeadlineAt = deps.clock.now() + Math.max(0, budgetMs);
  await durability.setRecoveryDeadline(turn.recoveryDeadlineAt);
  deps.faults.reach('after_deadline', turn.iteration + 1);
  try {
    const response = await generateWithRecovery(deps.provider, buildRequest(turn, deps), {
      runtime: deps.recovery,
      signal: turn.signal,
      budgetMs,
      ...(deps.onStreamEvent === undefined ? {} : { onStreamEvent: deps.onStreamEvent }),
      onEvent: (event) => turn.logger.debug({ recovery: event }, `model call: ${event.type}`),
    });
    return { kind: 'response', response };
  } catch (error) {
    if (!isRecoveryGiveUpError(error)) throw error;
    return { kind: 'outcome', outcome: error.reason === 'cancelled' ? stopped(turn) : outcomeOfGiveUp(error.reason, error.lastError) };
  }
}

/** A stopped turn: cancelled by /stop, or suspended with its work kept when the program shuts down. */
export function stopped(turn: ChatTurn): TurnOutcome {
  return isShutdownReason(turn.signal.reason) ? { kind: 'suspended', cause: 'shutdown', detail: 'shutdown' } : { kind: 'cancelled' };
}

function outcomeOfGiveUp(reason: 'deadline' | 'non_retryable', lastError: unknown): TurnOutcome {
  const detail = lastError instanceof Error ? lastError.message : 'no attempt was made';
  if (reason === 'deadline' || isCircuitOpenError(lastError)) return { kind: 'suspended', cause: isLLMErrorOfKind(lastError, 'transport') ? 'unreachable' : 'capacity', detail };
  if (isLLMErrorOfKind(lastError, 'auth')) return { kind: 'failed', reason: 'provider_auth', detail };
  if (isLLMErrorOfKind(lastError, 'request')) return { kind: 'failed', reason: 'provider_request', detail };
  if (isLLMErrorOfKind(lastError, 'rate_limit')) return { kind: 'failed', reason: lastError.quota ? 'provider_quota' : 'provider_rate_limit', detail };
  return { kind: 'failed', reason: 'internal_error', detail };
}

function buildRequest(turn: ChatTurn, deps: EngineDeps): GenerateRequest {
  const lastStep = turn.finalAnswerRequested && turn.iteration >= turn.budgets.maxIterations - 1;
  return {
    system: turn.systemPrompt,
    messages: turn.transcript,
    ...(turn.tools.length === 0 ? {} : { tools: toolDefinitions(turn.tools) }),
    ...(lastStep ? { toolChoice: 'none' as const } : {}),
    ...(deps.maxTokens === undefined ? {} : { maxTokens: deps.maxTokens }),
  };
}

/**
 * One tool step, WI-1 to WI-4: the assistant message and a PREPARED op per call durable before
 * anything runs; the batch fitted to the budget; each call answered; results and checkpoint.
 * Returns an outcome when the turn must end here.
 */
async function toolStep(turn: ChatTurn, durability: TurnDurability, deps: EngineDeps, step: number, assistant: Message, uses: ToolUseBlock[]): Promise<TurnOutcome | undefined> {
  let ops: OpRecord[];
  try {
    ops = await durability.recordModelTurn(step, assistant, uses.map((use) => intentOf(turn, use)));
  } catch (error) {
    if (!isLedgerIntentError(error)) throw error;
    // An empty or repeated call id: the whole batch goes back to the model, nothing runs.
    const renamed = withDistinctIds(assistant);
    const bounced: Message = {
      role: 'tool',
      content: toolUses(renamed).map((use) => ({ type: 'tool_result', toolUseId: use.id, content: `not run: ${error.message}; every call of this batch was refused`, isError: true })),
    };
    turn.transcript.push(renamed, bounced);
    await durability.checkpoint([renamed, bounced], encodeCheckpointState(turn), true);
    return undefined;
  }
  turn.transcript.push(assistant);
  deps.faults.reach('after_wi1', step);
  return answerBatch(turn, durability, deps, step, uses, ops);
}

/** Plans, runs and records one logged batch; shared by the live loop and by continuations. */
export async function answerBatch(turn: ChatTurn, durability: TurnDurability, deps: EngineDeps, step: number, uses: readonly ToolUseBlock[], ops: readonly OpRecord[]): Promise<TurnOutcome | undefined> {
  const plans = planBatch(turn, uses);
  const batch = await runBatch(plans, new Map(ops.map((op) => [op.toolCallId, op])), { turn, durability, clock: deps.clock, faults: deps.faults, step });
  if (batch.manual.length > 0) return { kind: 'needs_manual_resolution', calls: batch.manual };
  if (batch.stopped) return stopped(turn);
  const results: Message = { role: 'tool', content: batch.results };
  turn.transcript.push(results);
  await durability.checkpoint([results], encodeCheckpointState(turn), true);
  deps.faults.reach('after_wi4', step);
  return undefined;
}

/** WI-5: a guard's message and its consumed flag are durable before the next model call. */
async function injectGuard(turn: ChatTurn, durability: TurnDurability, deps: EngineDeps, kind: 'emptyTurn' | 'continueCutOff' | 'finalAnswer', point: 'after_wi5', before: Message[] = []): Promise<void> {
  const message = guardMessage(kind);
  turn.transcript.push(message);
  await durability.checkpoint([...before, message], encodeCheckpointState(turn), before.length > 0);
  deps.faults.reach(point, turn.iteration);
}

function intentOf(turn: ChatTurn, use: ToolUseBlock): { toolCallId: string; toolName: string; input: ToolUseBlock['input']; effect: 'read' | 'idempotent' | 'write' } {
  return { toolCallId: use.id, toolName: use.name, input: use.input, effect: turn.tools.find((tool) => tool.name === use.name)?.effect ?? 'write' };
}

/** The assistant message with its empty and repeated call ids renamed, so that each call can be answered once. */
function withDistinctIds(assistant: Message): Message {
  const seen = new Set<string>();
  const content = assistant.content.map((block) => {
    if (block.type !== 'tool_use') return block;
    let id = block.id === '' ? 'call' : block.id;
    for (let n = 2; seen.has(id); n++) id = `${block.id === '' ? 'call' : block.id}_${n}`;
    seen.add(id);
    return { ...block, id };
  });
  return { ...assistant, content };
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
