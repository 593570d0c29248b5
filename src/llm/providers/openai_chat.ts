/**
 * OpenAI Chat Completions (`POST /chat/completions`, streamed), as OpenAI serves it and as the
 * servers that copy it do: Ollama `/v1`, vLLM, OpenRouter, LM Studio, Moonshot, DeepSeek.
 */
import type { ResponseAssembler } from '../assembler.js';
import { throwIfStreamError, type ErrorContext } from '../classify.js';
import type { WireProtocol } from '../http_provider.js';
import { isRecord, numberAt, recordAt, stringAt, type JsonRecord } from '../json_fields.js';
import { frameObject } from '../malformed_frame.js';
import type { ContentBlock, GenerateRequest, Message, StopReason, ToolResultBlock, ToolUseBlock } from '../protocol.js';
import { bearerJsonHeaders, imageDataUrl, toolResultText } from './shared_wire.js';
import { assertNever } from '../../core/assert_never.js';

type ChatContentPart = { readonly type: 'text'; readonly text: string } | { readonly type: 'image_url'; readonly image_url: { readonly url: string } };

type ChatMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string | readonly ChatContentPart[] }
  | { readonly role: 'assistant'; readonly content: string | null; readonly tool_calls?: readonly ChatToolCall[] }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string };

interface ChatToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/** The OpenAI Chat Completions wire format. */
export const openAIChatProtocol: WireProtocol = {
  buildRequest(request, settings, apiKey) {
    const context: ErrorContext = { provider: settings.provider, model: settings.model };
    const temperature = request.temperature ?? settings.temperature;
    const tools = request.tools ?? [];
    return {
      url: `${settings.baseUrl}/chat/completions`,
      headers: bearerJsonHeaders(apiKey, settings.headers),
      body: {
        model: settings.model,
        messages: chatMessages(request, context),
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: request.maxTokens ?? settings.maxTokens,
        ...(temperature === undefined ? {} : { temperature }),
        ...(tools.length === 0 ? {} : { tools: tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } })) }),
        ...(request.toolChoice === 'none' ? { tool_choice: 'none' } : {}),
      },
    };
  },

  apply(item, assembler, context) {
    if (item.kind === 'json_line') {
      throwIfStreamError(item.value, context);
      return false;
    }
    if (item.data.trim() === '[DONE]') return true;
    const chunk = frameObject(item.data, context);
    throwIfStreamError(chunk, context);
    applyChunk(chunk, assembler);
    return false;
  },
};

function chatMessages(request: GenerateRequest, context: ErrorContext): ChatMessage[] {
  const system: ChatMessage[] = request.system === undefined || request.system === '' ? [] : [{ role: 'system', content: request.system }];
  return [...system, ...request.messages.flatMap((message) => chatMessagesOf(message, context))];
}

/** One neutral message as chat messages: tool results each become a `tool` message, ahead of the rest. */
function chatMessagesOf(message: Message, context: ErrorContext): ChatMessage[] {
  switch (message.role) {
    case 'system':
      return [{ role: 'system', content: textOf(message.content, '\n') ?? '' }];
    case 'assistant':
      return [assistantMessage(message.content)];
    case 'user':
    case 'tool': {
      const results = message.content
        .filter((block): block is ToolResultBlock => block.type === 'tool_result')
        .map((block): ChatMessage => ({ role: 'tool', tool_call_id: block.toolUseId, content: toolResultText(block) }));
      const rest = message.content.filter((block) => block.type === 'text' || block.type === 'image');
      return rest.length === 0 && results.length > 0 ? results : [...results, userMessage(rest, context)];
    }
    default:
      return assertNever(message.role);
  }
}

function assistantMessage(content: readonly ContentBlock[]): ChatMessage {
  const calls = content
    .filter((block): block is ToolUseBlock => block.type === 'tool_use')
    .map((block): ChatToolCall => ({
      id: block.id,
      type: 'function',
      function: { name: block.name, arguments: block.malformedInput?.raw ?? JSON.stringify(block.input) },
    }));
  return { role: 'assistant', content: textOf(content, '') ?? null, ...(calls.length === 0 ? {} : { tool_calls: calls }) };
}

/** Text alone goes as a string; with images, as parts in order. */
function userMessage(content: readonly ContentBlock[], context: ErrorContext): ChatMessage {
  if (!content.some((block) => block.type === 'image')) return { role: 'user', content: textOf(content, '\n') ?? '' };
  const parts = content.flatMap((block): ChatContentPart[] => {
    if (block.type === 'text') return [{ type: 'text', text: block.text }];
    if (block.type !== 'image') return [];
    return [{ type: 'image_url', image_url: { url: imageDataUrl(block, context) } }];
  });
  return { role: 'user', content: parts };
}

/** The text blocks joined by `separator`; `undefined` when there are none. */
function textOf(content: readonly ContentBlock[], separator: string): string | undefined {
  const texts = content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  return texts.length === 0 ? undefined : texts.join(separator);
}

/** One `chat.completion.chunk`: provenance, the first choice's delta and finish reason, usage (which may come after the finish reason, in a chunk without choices). */
function applyChunk(chunk: JsonRecord, assembler: ResponseAssembler): void {
  assembler.setProvenance({ model: stringAt(chunk, 'model'), responseId: stringAt(chunk, 'id') });
  const choice = Array.isArray(chunk['choices']) ? (chunk['choices'] as unknown[])[0] : undefined;
  if (isRecord(choice)) {
    const delta = choice['delta'];
    if (isRecord(delta)) applyDelta(delta, assembler);
    const reason = stringAt(choice, 'finish_reason');
    if (reason !== undefined) assembler.setStopReason(stopReasonOf(reason));
  }
  // Moonshot reports usage inside the choice rather than beside it.
  const usage = chunk['usage'] ?? (isRecord(choice) ? choice['usage'] : undefined);
  assembler.setUsage({
    inputTokens: numberAt(usage, 'prompt_tokens'),
    outputTokens: numberAt(usage, 'completion_tokens'),
    cacheReadTokens: numberAt(recordAt(usage, 'prompt_tokens_details'), 'cached_tokens'),
    reasoningTokens: numberAt(recordAt(usage, 'completion_tokens_details'), 'reasoning_tokens'),
  });
}

function applyDelta(delta: JsonRecord, assembler: ResponseAssembler): void {
  const text = stringAt(delta, 'content');
  if (text !== undefined) assembler.addText(text);
  // DeepSeek names the reasoning `reasoning_content`, OpenRouter `reasoning`.
  assembler.addReasoning(stringAt(delta, 'reasoning_content') ?? stringAt(delta, 'reasoning') ?? '');
  const calls = delta['tool_calls'];
  if (!Array.isArray(calls)) return;
  (calls as unknown[]).forEach((call, position) => {
    if (!isRecord(call)) return;
    const fn = recordAt(call, 'function');
    assembler.toolCallDelta(String(numberAt(call, 'index') ?? position), {
      id: stringAt(call, 'id'),
      name: stringAt(fn, 'name'),
      arguments: stringAt(fn, 'arguments'),
    });
  });
}

function stopReasonOf(finishReason: string): StopReason {
  switch (finishReason) {
    case 'stop':
      return 'end_turn';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'other';
  }
}
