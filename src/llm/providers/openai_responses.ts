import type { ResponseAssembler } from '../assembler.js';
import { errorFieldsOf, errorFromStreamPayload, throwIfStreamError, type ErrorContext } from '../classify.js';
import { LLMTransportError } from '../errors.js';
import type { WireProtocol } from '../http_provider.js';
import { numberAt, recordAt, stringAt } from '../json_fields.js';
import { frameObject } from '../malformed_frame.js';
import type { ContentBlock, Message, StopReason } from '../protocol.js';
import { bearerJsonHeaders, imageDataUrl, toolResultText } from './shared_wire.js';
import { assertNever } from '../../core/assert_never.js';

type InputContent = { readonly type: 'input_text'; readonly text: string } | { readonly type: 'input_image'; readonly image_url: string } | { readonly type: 'output_text'; readonly text: string };

/** One entry of the Responses API `input` list. */
type InputItem =
  | { readonly role: 'system' | 'user' | 'assistant'; readonly content: InputContent[] }
  | { readonly type: 'reasoning'; readonly encrypted_content: string; readonly summary: readonly { readonly type: 'summary_text'; readonly text: string }[] }
  | { readonly type: 'function_call'; readonly call_id: string; readonly name: string; readonly arguments: string }
  | { readonly type: 'function_call_output'; readonly call_id: string; readonly output: string };

/**
 * The OpenAI Responses API (`POST /responses`, streamed). Text arrives as
 * `response.output_text.delta`, tool calls as `function_call` output items whose arguments stream
 * by item id, and the stream ends with `response.completed` or `response.incomplete`.
 * `response.failed` and `error` events throw the typed error their fields call for. Nothing is
 * stored on the provider's side (`store: false`), so the model's reasoning is asked for encrypted
 * and sent back, in its place, with the step's tool results.
 */
export const openAIResponsesProtocol: WireProtocol = {
  buildRequest(request, settings, apiKey) {
    const context: ErrorContext = { provider: settings.provider, model: settings.model };
    const temperature = request.temperature ?? settings.temperature;
    const tools = request.tools ?? [];
    return {
      url: `${settings.baseUrl}/responses`,
      headers: bearerJsonHeaders(apiKey, settings.headers),
      body: {
        model: settings.model,
        input: request.messages.flatMap((message) => inputItems(message, context)),
        ...(request.system === undefined ? {} : { instructions: request.system }),
        stream: true,
        store: false,
        include: ['reasoning.encrypted_content'],
        max_output_tokens: request.maxTokens ?? settings.maxTokens,
        ...(temperature === undefined ? {} : { temperature }),
        ...(tools.length === 0 ? {} : { tools: tools.map((tool) => ({ type: 'function', name: tool.name, description: tool.description, parameters: tool.inputSchema })) }),
        ...(request.toolChoice === 'none' ? { tool_choice: 'none' } : {}),
      },
    };
  },

  apply(item, assembler, context) {
    if (item.kind === 'json_line') {
      throwIfStreamError(item.value, context);
      return false;
    }
    const data = frameObject(item.data, context);
    const type = stringAt(data, 'type') ?? item.event ?? '';
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
        noteResponse(data, assembler);
        return false;
      case 'response.output_text.delta':
        assembler.addText(stringAt(data, 'delta') ?? '');
        return false;
      case 'response.reasoning_text.delta':
      case 'response.reasoning_summary_text.delta':
        assembler.addReasoning(stringAt(data, 'delta') ?? '');
        return false;
      case 'response.output_item.added':
        addFunctionCall(data, assembler);
        return false;
      case 'response.output_item.done':
        addReasoning(data, assembler);
        return false;
      case 'response.function_call_arguments.delta':
        assembler.toolCallDelta(callKey(data), { arguments: stringAt(data, 'delta') });
        return false;
      case 'response.function_call_arguments.done': {
        const complete = stringAt(data, 'arguments');
        if (complete !== undefined) assembler.toolCallArguments(callKey(data), complete);
        return false;
      }
      case 'response.completed':
        noteResponse(data, assembler);
        assembler.setStopReason('end_turn');
        return true;
      case 'response.incomplete':
        noteResponse(data, assembler);
        assembler.setStopReason(incompleteStopReason(data));
        return true;
      case 'response.failed': {
        noteResponse(data, assembler);
        const fields = errorFieldsOf(data);
        if (fields === undefined) {
          throw new LLMTransportError(`${context.provider} ${context.model}: the response failed without an error`, { ...context, code: 'response_failed' });
        }
        throw errorFromStreamPayload(context, fields);
      }
      case 'error':
        throw errorFromStreamPayload(context, errorFieldsOf(data) ?? {});
      default:
        return false;
    }
  },
};

/** The input items for one message: tool results first, then the message's own content. */
function inputItems(message: Message, context: ErrorContext): InputItem[] {
  switch (message.role) {
    case 'system': {
      const content = message.content.flatMap((block): InputContent[] => (block.type === 'text' ? [{ type: 'input_text', text: block.text }] : []));
      return content.length === 0 ? [] : [{ role: 'system', content }];
    }
    case 'user':
    case 'tool': {
      const results = message.content.flatMap((block): InputItem[] =>
        block.type === 'tool_result' ? [{ type: 'function_call_output', call_id: block.toolUseId, output: toolResultText(block) }] : [],
      );
      const content = message.content.flatMap((block) => userContent(block, context));
      return content.length === 0 ? results : [...results, { role: 'user', content }];
    }
    case 'assistant':
      return assistantItems(message.content);
    default:
      return assertNever(message.role);
  }
}

/** An assistant message's blocks as input items, in their order: reasoning, text (consecutive texts in one message) and calls. */
function assistantItems(blocks: readonly ContentBlock[]): InputItem[] {
  const items: InputItem[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text': {
        const last = items.at(-1);
        if (last !== undefined && 'role' in last) last.content.push({ type: 'output_text', text: block.text });
        else items.push({ role: 'assistant', content: [{ type: 'output_text', text: block.text }] });
        break;
      }
      case 'tool_use':
        items.push({ type: 'function_call', call_id: block.id, name: block.name, arguments: block.malformedInput?.raw ?? JSON.stringify(block.input) });
        break;
      case 'reasoning':
        items.push({ type: 'reasoning', encrypted_content: block.encryptedContent, summary: block.summary.map((text) => ({ type: 'summary_text', text })) });
        break;
      case 'image':
      case 'tool_result':
        break;
      default:
        assertNever(block);
    }
  }
  return items;
}

/** A block of a user (or tool) message as input content; tool results and calls travel as their own items. */
function userContent(block: ContentBlock, context: ErrorContext): InputContent[] {
  switch (block.type) {
    case 'text':
      return [{ type: 'input_text', text: block.text }];
    case 'image':
      return [{ type: 'input_image', image_url: imageDataUrl(block, context) }];
    case 'tool_result':
    case 'tool_use':
    case 'reasoning':
      return [];
    default:
      return assertNever(block);
  }
}

/**
 * Records the model, response id and usage a `response.*` event carries in its `response` object:
 * `usage` is null until `response.completed`, `response.incomplete` or `response.failed`.
 */
function noteResponse(data: unknown, assembler: ResponseAssembler): void {
  const response = recordAt(data, 'response');
  assembler.setProvenance({ model: stringAt(response, 'model'), responseId: stringAt(response, 'id') });
  const usage = recordAt(response, 'usage');
  assembler.setUsage({
    inputTokens: numberAt(usage, 'input_tokens'),
    outputTokens: numberAt(usage, 'output_tokens'),
    cacheReadTokens: numberAt(recordAt(usage, 'input_tokens_details'), 'cached_tokens'),
    reasoningTokens: numberAt(recordAt(usage, 'output_tokens_details'), 'reasoning_tokens'),
  });
}

function addFunctionCall(data: unknown, assembler: ResponseAssembler): void {
  const item = recordAt(data, 'item');
  if (stringAt(item, 'type') !== 'function_call') return;
  const key = stringAt(item, 'id') ?? indexKey(data);
  assembler.toolCallDelta(key, { id: stringAt(item, 'call_id'), name: stringAt(item, 'name'), arguments: stringAt(item, 'arguments') });
}

/** A finished reasoning item with its encrypted content; its id is not kept, since nothing on the provider's side could be found by it. */
function addReasoning(data: unknown, assembler: ResponseAssembler): void {
  const item = recordAt(data, 'item');
  const encrypted = stringAt(item, 'encrypted_content');
  if (stringAt(item, 'type') !== 'reasoning' || encrypted === undefined) return;
  const summary = Array.isArray(item?.['summary']) ? item['summary'].flatMap((part: unknown) => stringAt(part, 'text') ?? []) : [];
  assembler.addReasoningItem(encrypted, summary);
}

/** The key a tool call's argument events name it by: the item id, else its output index. */
function callKey(data: unknown): string {
  return stringAt(data, 'item_id') ?? indexKey(data);
}

function indexKey(data: unknown): string {
  return `#${numberAt(data, 'output_index') ?? 0}`;
}

function incompleteStopReason(data: unknown): StopReason {
  const reason = stringAt(recordAt(recordAt(data, 'response'), 'incomplete_details'), 'reason');
  if (reason === 'max_output_tokens') return 'max_tokens';
  if (reason === 'content_filter') return 'content_filter';
  return 'other';
}
