import type { Clock } from '../core/clock.js';
import { isLLMError, isLLMErrorOfKind } from '../llm/errors.js';
import type { GenerateRequest, GenerateResponse } from '../llm/protocol.js';
import type { LLMProvider, StreamEvent } from '../llm/provider.js';
import { assertToolPairs } from '../llm/tool_pairs.js';
import { isCircuitOpenError } from '../recovery/circuit_open_error.js';
import { generateOnRoute, type RecoveryEvent, type RecoveryRuntime } from '../recovery/generate_with_recovery.js';
import { routeOf } from '../recovery/model_route.js';
import { isRecoveryGiveUpError } from '../recovery/give_up_error.js';
import { toolDefinitions } from '../tools/catalog.js';
import type { ToolActivity } from './batch_runner.js';
import type { ChatTurn } from './chat_turn.js';
import type { TurnDurability } from './durability.js';
import type { FaultInjector } from './fault_points.js';
import { stopped, type TurnOutcome } from './turn_outcome.js';
import type { TurnStats } from './turn_stats.js';
import type { AttemptUsage, TurnMeter } from './turn_meter.js';

export interface EngineDeps {
  /** The turn's first model. */
  readonly provider: LLMProvider;
  /** The models a step may go on with, in order, when the ones before are overloaded (DESIGN §5.4); none when absent. */
  readonly fallbacks?: readonly LLMProvider[];
  readonly recovery: RecoveryRuntime;
  readonly clock: Clock;
  readonly faults: FaultInjector;
  /** Overrides the provider's configured max tokens per reply. */
  readonly maxTokens?: number;
  readonly onStreamEvent?: (event: StreamEvent) => void;
  /** Each model call's attempts and waits as they happen, for showing where the turn stands. */
  readonly onRecoveryEvent?: (event: RecoveryEvent) => void;
  /** Each tool call as it starts and stops running. */
  readonly onToolActivity?: (activity: ToolActivity) => void;
  /** Where this run counts its model attempts, tool calls and tokens. */
  readonly stats?: TurnStats;
  /** Where this turn's model calls are counted, and the per-turn limits it stops at (DESIGN §10.1). */
  readonly meter?: TurnMeter;
  /** The probe slots of the models' breakers that this run claimed (a resume is the probe): its first model call to each goes as that probe. */
  readonly probeTokens?: readonly string[];
}

/** The model's answer and the model of the route that gave it, or the outcome that ends the turn because no answer could be had. */
export type Generated = { readonly kind: 'response'; readonly response: GenerateResponse; readonly model: LLMProvider } | { readonly kind: 'outcome'; readonly outcome: TurnOutcome };

/**
 * Makes the absolute recovery deadline durable (DESIGN §7.3), then asks the turn's models until
 * it; each move from an overloaded model to the next is logged once. What the attempts cost goes
 * with the turn's next write (by itself when durability is off).
 */
export async function generate(turn: ChatTurn, durability: TurnDurability, deps: EngineDeps, budgetMs: number): Promise<Generated> {
  assertToolPairs(turn.transcript);
  const now = deps.clock.now();
  turn.recoveryDeadlineAt = await durability.recoveryDeadline(now, Math.max(0, budgetMs));
  const untilDeadlineMs = Math.max(0, turn.recoveryDeadlineAt - now);
  deps.faults.reach('after_deadline', turn.iteration + 1);
  const attempts: AttemptUsage[] = [];
  const request = buildRequest(turn, deps);
  const trace = turn.trace?.generation(deps.provider, request);
  try {
    const { response, model } = await generateOnRoute(routeOf(deps.provider, deps.fallbacks), request, {
      runtime: deps.recovery,
      signal: turn.signal,
      budgetMs: untilDeadlineMs,
      ...(deps.probeTokens === undefined ? {} : { probeTokens: deps.probeTokens }),
      ...(deps.onStreamEvent === undefined ? {} : { onStreamEvent: deps.onStreamEvent }),
      onEvent: (event) => {
        if (event.type === 'attempt_started') deps.stats?.modelAttempted();
        if (event.type === 'attempt_failed' && isLLMError(event.error) && event.error.usage !== undefined) attempts.push({ model: event.error.model, usage: event.error.usage });
        if (event.type === 'switched')
          turn.logger.info({ from: event.from.model, to: event.to.model, why: event.error.message }, `model ${event.from.model} is overloaded: going on with ${event.to.model}`);
        turn.logger.debug({ recovery: event }, `model call: ${event.type}`);
        trace?.observe(event);
        deps.onRecoveryEvent?.(event);
      },
    });
    deps.stats?.responded(response.usage);
    attempts.push({ model: model.model, usage: response.usage });
    trace?.responded(response, model);
    return { kind: 'response', response, model };
  } catch (error) {
    if (!isRecoveryGiveUpError(error)) throw error;
    return { kind: 'outcome', outcome: error.reason === 'cancelled' ? stopped(turn) : outcomeOfGiveUp(error.reason, error.lastError) };
  } finally {
    trace?.end();
    const usage = deps.meter?.usageOf(turn, attempts);
    if (usage !== undefined && durability.durable) durability.carryUsage(usage);
    else if (usage !== undefined) await deps.meter?.record(usage);
  }
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
