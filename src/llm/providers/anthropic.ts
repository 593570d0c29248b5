import type { ResponseAssembler } from '../assembler.js';
import { errorFieldsOf, errorFromStreamPayload, throwIfStreamError, type ErrorContext } from '../classify.js';
import type { ProviderSettings, WireProtocol } from '../http_provider.js';
import { isRecord, numberAt, parseJson, recordAt, stringAt, type JsonRecord } from '../json_fields.js';
import { malformedFrame } from '../malformed_frame.js';
import type { ContentBlock, GenerateRequest, JsonObject, Message, StopReason, Usage } from '../protocol.js';
import type { SseItem, SseRequest } from '../sse_stream.js';
import { inlineImage } from './shared_wire.js';
import { assertNever } from '../../core/assert_never.js';
import { createHash } from 'node:crypto';

/**
 * The Anthropic Messages API (`POST /v1/messages` with `stream: true`): how a neutral request is
 * written for it, and how its server-sent events build the response.
 */

const ANTHROPIC_VERSION = '2023-06-01';

type WireRole = 'user' | 'assistant';

type WireBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly source: { readonly type: 'base64'; readonly media_type: string; readonly data: string } }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: JsonObject }
  | { readonly type: 'tool_result'; readonly tool_use_id: string; readonly content: string; readonly is_error: boolean };

interface WireMessage {
  readonly role: WireRole;
  readonly content: WireBlock[];
}

/** Anthropic's stop reasons; any other counts as `other`. */
const STOP_REASON_BY_NAME: ReadonlyMap<string, StopReason> = new Map([
  ['end_turn', 'end_turn'],
  ['stop_sequence', 'end_turn'],
  ['tool_use', 'tool_use'],
  ['max_tokens', 'max_tokens'],
  ['refusal', 'content_filter'],
]);

/** The Anthropic Messages wire protocol. */
export const anthropicProtocol: WireProtocol = {
  buildRequest(request: GenerateRequest, settings: ProviderSettings, apiKey: string | undefined): SseRequest {
    const context: ErrorContext = { provider: settings.provider, model: settings.model };
    const leading = request.messages.findIndex((message) => message.role !== 'system');
    const split = leading === -1 ? request.messages.length : leading;
    const system = [request.system, ...request.messages.slice(0, split).map(textOf)].filter((part) => part !== undefined && part !== '').join('\n\n');
    const tools = request.tools ?? [];
    const temperature = request.temperature ?? settings.temperature;
    return {
      url: `${settings.baseUrl}/messages`,
      headers: {
        'content-type': 'application/json',
        'anthropic-version': ANTHROPIC_VERSION,
        ...(apiKey === undefined ? {} : { 'x-api-key': apiKey }),
        ...settings.headers,
      },
      body: {
        model: settings.model,
        max_tokens: request.maxTokens ?? settings.maxTokens,
        ...(system === '' ? {} : { system }),
        messages: toWireMessages(request.messages.slice(split), context),
        stream: true,
        ...(temperature === undefined ? {} : { temperature }),
        ...(tools.length === 0
          ? {}
          : {
              tools: tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema })),
              ...(request.toolChoice === 'none' ? { tool_choice: { type: 'none' } } : {}),
            }),
      },
    };
  },

  apply(item: SseItem, assembler: ResponseAssembler, context: ErrorContext): boolean {
    switch (item.kind) {
      case 'json_line':
        throwIfStreamError(item.value, context);
        return false;
      case 'event':
        return applyEvent(item, assembler, context);
      default:
        return assertNever(item);
    }
  },
};

/**
 * Applies one event, decided on its data's `type`; the event name stands in only when the data
 * has none. Only `text` and `tool_use` blocks make the answer: any other block (`thinking`,
 * `server_tool_use` and its result, …) is the server's own business, its deltas included, so a
 * server tool never becomes a call of ours.
 */
function applyEvent(item: { readonly event: string | undefined; readonly data: string }, assembler: ResponseAssembler, context: ErrorContext): boolean {
  const data = parseJson(item.data);
  if (!isRecord(data)) {
    if (item.event === 'error') throw errorFromStreamPayload(context, { message: item.data });
    throw malformedFrame(item.data, context);
  }
  const type = stringAt(data, 'type') ?? item.event ?? '';
  switch (type) {
    case 'message_start': {
      const message = recordAt(data, 'message');
      assembler.setProvenance({ model: stringAt(message, 'model'), responseId: stringAt(message, 'id') });
      // The output count here is a placeholder; message_delta reports the real one.
      assembler.setUsage({ ...usageOf(recordAt(message, 'usage')), outputTokens: undefined });
      return false;
    }
    case 'content_block_start': {
      const block = recordAt(data, 'content_block');
      const key = indexKey(data);
      const blockType = stringAt(block, 'type');
      if (blockType === 'text') assembler.addText(stringAt(block, 'text') ?? '');
      else if (blockType === 'tool_use' && key !== undefined) assembler.toolCallDelta(key, { id: stringAt(block, 'id'), name: stringAt(block, 'name') });
      return false;
    }
    case 'content_block_delta': {
      const delta = recordAt(data, 'delta');
      const key = indexKey(data);
      const deltaType = stringAt(delta, 'type');
      if (deltaType === 'text_delta') assembler.addText(stringAt(delta, 'text') ?? '');
      else if (deltaType === 'thinking_delta') assembler.addReasoning(stringAt(delta, 'thinking') ?? '');
      else if (deltaType === 'input_json_delta' && key !== undefined && assembler.hasToolCall(key)) assembler.toolCallDelta(key, { arguments: stringAt(delta, 'partial_json') });
      return false;
    }
    case 'message_delta': {
      const stopReason = stringAt(recordAt(data, 'delta'), 'stop_reason');
      if (stopReason !== undefined) assembler.setStopReason(STOP_REASON_BY_NAME.get(stopReason) ?? 'other');
      assembler.setUsage(usageOf(recordAt(data, 'usage')));
      return false;
    }
    case 'message_stop':
      return true;
    case 'error':
      throw errorFromStreamPayload(context, errorFieldsOf(data) ?? {});
    default:
      return false;
  }
}

/**
 * The counts of a `usage` object. Anthropic's `input_tokens` leaves out the tokens read from and
 * written to the prompt cache, so the neutral input count is the sum of the three. Thinking is
 * counted in `output_tokens` with no count of its own, so the reasoning count stays unknown.
 */
function usageOf(usage: JsonRecord | undefined): { readonly [K in keyof Usage]: number | undefined } {
  const uncached = numberAt(usage, 'input_tokens');
  const cacheReadTokens = numberAt(usage, 'cache_read_input_tokens');
  const cacheWriteTokens = numberAt(usage, 'cache_creation_input_tokens');
  return {
    inputTokens: uncached === undefined ? undefined : uncached + (cacheReadTokens ?? 0) + (cacheWriteTokens ?? 0),
    outputTokens: numberAt(usage, 'output_tokens'),
    cacheReadTokens,
    cacheWriteTokens,
  };
}

/** Leading system messages go to `system`; the rest alternate between user and assistant. */
function toWireMessages(messages: readonly Message[], context: ErrorContext): WireMessage[] {
  const merged: WireMessage[] = [];
  for (const message of messages) {
    const role = wireRole(message);
    const content: WireBlock[] = message.role === 'system' ? [{ type: 'text', text: textOf(message) }] : message.content.flatMap((block) => toWireBlock(block, context));
    const blocks = content.filter((block) => block.type !== 'text' || block.text !== '');
    if (blocks.length === 0) continue;
    const last = merged.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else merged.push({ role, content: blocks });
  }
  return merged.map(({ role, content }) => ({ role, content: role === 'user' ? toolResultsFirst(content) : content }));
}

function wireRole(message: Message): WireRole {
  switch (message.role) {
    case 'assistant':
      return 'assistant';
    case 'user':
    case 'tool':
    case 'system':
      return 'user';
    default:
      return assertNever(message.role);
  }
}

/** A block as Anthropic takes it; another provider's reasoning is left out. */
function toWireBlock(block: ContentBlock, context: ErrorContext): WireBlock[] {
  switch (block.type) {
    case 'text':
      return [{ type: 'text', text: block.text }];
    case 'image': {
      const { mediaType, data } = inlineImage(block, context);
      return [{ type: 'image', source: { type: 'base64', media_type: mediaType, data } }];
    }
    case 'tool_use':
      return [{ type: 'tool_use', id: anthropicToolId(block.id), name: block.name, input: block.malformedInput === undefined ? block.input : {} }];
    case 'tool_result':
      return [{ type: 'tool_result', tool_use_id: anthropicToolId(block.toolUseId), content: block.content, is_error: block.isError }];
    case 'reasoning':
      return [];
    default:
      return assertNever(block);
  }
}

/** Anthropic wants a user message's tool results before anything else in it. */
function toolResultsFirst(blocks: readonly WireBlock[]): WireBlock[] {
  return [...blocks.filter((block) => block.type === 'tool_result'), ...blocks.filter((block) => block.type !== 'tool_result')];
}

function textOf(message: Message): string {
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n\n');
}

/** The assembler's key for a content block: its index. */
function indexKey(data: JsonRecord): string | undefined {
  const index = data['index'];
  return typeof index === 'number' ? String(index) : undefined;
}

/** The tool call ids Anthropic accepts. */
const ANTHROPIC_TOOL_ID = /^[A-Za-z0-9_-]+$/;

/**
 * A tool call id as Anthropic accepts it. A transcript may hold ids another provider made (a turn
 * that changed model, DESIGN §5.4), some with characters Anthropic refuses (`functions.search:0`):
 * those are rewritten the same way in a call and in its result, with a digest of the original so
 * that two ids never become one. Any other id is sent as it is.
 */
export function anthropicToolId(id: string): string {
  if (ANTHROPIC_TOOL_ID.test(id)) return id;
  const digest = createHash('sha256').update(id).digest('hex').slice(0, 12);
  return `${id.replace(/[^A-Za-z0-9_-]/g, '_')}_${digest}`;
}
