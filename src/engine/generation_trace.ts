import { assertNever } from '../core/assert_never.js';
import type { TraceSpan, Tracer, TraceRef } from '../core/tracing.js';
import { isLLMError, type LLMError } from '../llm/errors.js';
import type { GenerateRequest, GenerateResponse, StopReason } from '../llm/protocol.js';
import type { LLMProvider } from '../llm/provider.js';
import type { CircuitOpenError } from '../recovery/circuit_open_error.js';
import type { RecoveryEvent } from '../recovery/generate_with_recovery.js';

/**
 * The OpenTelemetry GenAI semantic conventions' names a generation's span uses
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/), kept here rather than taken from the
 * semantic-conventions package so that a bot without telemetry loads none of OpenTelemetry.
 */
export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheWriteTokens: 'gen_ai.usage.cache_creation.input_tokens',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
} as const;

/** The conventions' `gen_ai.provider.name` for a configured provider: both OpenAI APIs are `openai`. */
function genAiProvider(provider: string): string {
  return provider === 'openai-responses' ? 'openai' : provider;
}

/** The conventions' finish reason for a stop reason. */
function finishReason(reason: StopReason): string {
  switch (reason) {
    case 'end_turn':
      return 'stop';
    case 'max_tokens':
      return 'length';
    case 'tool_use':
      return 'tool_call';
    case 'content_filter':
    case 'other':
      return reason;
    default:
      return assertNever(reason);
  }
}

/** What went wrong with an attempt, as `error.type`: the typed error's kind, or `circuit_open`. */
function errorType(error: LLMError | CircuitOpenError): string {
  return isLLMError(error) ? error.kind : 'circuit_open';
}

/**
 * The span of one generation (DESIGN §10.3): `chat <model>` under the turn, with the GenAI
 * conventions' attributes, and its life as events — each attempt (with the model asked and whether
 * it went as its breaker's probe), each failed attempt with its error class, each backoff waited,
 * each refusal by the breakers, each move to a fallback model, and a give-up.
 */
export class GenerationTrace {
  readonly #span: TraceSpan;

  constructor(tracer: Tracer, parent: TraceRef | undefined, first: LLMProvider, request: GenerateRequest) {
    this.#span = tracer.start(`chat ${first.model}`, {
      parent,
      kind: 'client',
      attributes: {
        [GEN_AI.operation]: 'chat',
        [GEN_AI.provider]: genAiProvider(first.provider),
        [GEN_AI.requestModel]: first.model,
        [GEN_AI.requestMaxTokens]: request.maxTokens,
      },
    });
    this.#span.content(GEN_AI.systemInstructions, request.system);
    this.#span.content(GEN_AI.inputMessages, request.messages);
  }

  /** One event of the recovery policy, as it happened. */
  observe(event: RecoveryEvent): void {
    const span = this.#span;
    switch (event.type) {
      case 'attempt_started':
        span.event('gen_ai.attempt', {
          'holdfast.attempt': event.attempt,
          [GEN_AI.provider]: genAiProvider(event.model.provider),
          [GEN_AI.requestModel]: event.model.model,
          'holdfast.breaker.probe': event.probe,
          'holdfast.recovery.remaining_ms': Math.max(0, Math.round(event.remainingMs)),
        });
        return;
      case 'attempt_failed':
        span.event('gen_ai.attempt.failed', {
          'holdfast.attempt': event.attempt,
          'error.type': errorType(event.error),
          [GEN_AI.requestModel]: event.error.model,
          'http.response.status_code': isLLMError(event.error) ? event.error.status : undefined,
          'holdfast.error': event.error.message,
        });
        return;
      case 'refused':
        for (const refusal of event.refusals) {
          span.event('holdfast.breaker.refused', { [GEN_AI.requestModel]: refusal.model, 'holdfast.breaker.state': refusal.state });
        }
        return;
      case 'waiting':
        span.event('holdfast.backoff', { 'holdfast.backoff.ms': Math.round(event.delayMs), 'holdfast.backoff.reason': event.reason });
        return;
      case 'switched':
        span.event('holdfast.fallback', { 'holdfast.fallback.from': event.from.model, 'holdfast.fallback.to': event.to.model, 'error.type': event.error.kind });
        return;
      case 'succeeded':
        span.set({ 'holdfast.attempts': event.attempts });
        return;
      case 'gave_up':
        span.set({ 'holdfast.attempts': event.attempts });
        span.event('holdfast.gave_up', { 'holdfast.recovery.reason': event.reason });
        span.fail(event.reason === 'non_retryable' && isLLMError(event.lastError) ? event.lastError.kind : event.reason);
        return;
      default:
        return assertNever(event);
    }
  }

  /** The answer `model` gave: its model, usage and finish reason. */
  responded(response: GenerateResponse, model: LLMProvider): void {
    const { usage } = response;
    this.#span.set({
      [GEN_AI.provider]: genAiProvider(model.provider),
      [GEN_AI.requestModel]: model.model,
      [GEN_AI.responseModel]: response.provenance.model,
      [GEN_AI.responseId]: response.provenance.responseId,
      [GEN_AI.finishReasons]: [finishReason(response.stopReason)],
      [GEN_AI.inputTokens]: usage.inputTokens ?? undefined,
      [GEN_AI.outputTokens]: usage.outputTokens ?? undefined,
      [GEN_AI.cacheReadTokens]: usage.cacheReadTokens,
      [GEN_AI.cacheWriteTokens]: usage.cacheWriteTokens,
    });
    this.#span.content(GEN_AI.outputMessages, [{ role: 'assistant', content: response.content }]);
  }

  /** Ends the span, however the generation ended: a give-up marked it failed already. */
  end(): void {
    this.#span.end();
  }
}
