import { sse, type FakeStep } from './server.js';

/** What the fake Responses server says about the response it streams. */
export interface ResponsesMeta {
  readonly model?: string;
  readonly responseId?: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

/** A function call the fake model makes; `args` is the raw argument text, valid JSON or not. */
export interface ResponsesCall {
  readonly callId?: string;
  readonly name: string;
  readonly args: string;
}

/** The model's encrypted reasoning, as a Responses server returns it with `include: ["reasoning.encrypted_content"]`. */
export interface ResponsesReasoning {
  readonly encryptedContent: string;
  readonly summary?: readonly string[];
}

/** The model and response id the helpers put in the stream unless told otherwise. */
export const RESPONSES_MODEL = 'gpt-fake-responses';
export const RESPONSES_ID = 'resp_fake_1';

/** One Responses event framed as SSE: the `event:` name and the data's `type` agree. */
export function responsesEvent(type: string, data: Readonly<Record<string, unknown>> = {}): string {
  return sse({ type, ...data }, type);
}

/** `response.created`, naming the model and response id. */
export function responsesCreated(meta: ResponsesMeta = {}): string {
  return responsesEvent('response.created', { response: responseObject(meta, 'in_progress') });
}

/** `response.completed`, with usage: the stream's normal end. */
export function responsesCompleted(meta: ResponsesMeta = {}): string {
  return responsesEvent('response.completed', { response: responseObject(meta, 'completed') });
}

/** A `stream` step from raw chunks; `then` as in {@link FakeStep}. */
export function responsesStream(chunks: readonly string[], then: 'end' | 'stall' | 'hang_up' = 'end'): FakeStep {
  return { kind: 'stream', chunks, then };
}

/** A whole text reply, its text split into `chunks` deltas of (nearly) equal length. */
export function responsesText(text: string, options: ResponsesMeta & { readonly chunks?: number } = {}): FakeStep {
  const deltas = split(text, Math.ceil(text.length / (options.chunks ?? 1)));
  return responsesStream([responsesCreated(options), ...deltas.map((delta) => responsesEvent('response.output_text.delta', { delta })), responsesCompleted(options)]);
}

/** A `reasoning` output item at `outputIndex`: added without its content, done with it. */
export function responsesReasoningItem(reasoning: ResponsesReasoning, outputIndex = 0): string[] {
  const item = { type: 'reasoning', id: `rs_${outputIndex + 1}` };
  const summary = (reasoning.summary ?? []).map((text) => ({ type: 'summary_text', text }));
  return [
    responsesEvent('response.output_item.added', { output_index: outputIndex, item: { ...item, summary: [] } }),
    ...summary.map((part) => responsesEvent('response.reasoning_summary_text.delta', { output_index: outputIndex, item_id: item.id, delta: part.text })),
    responsesEvent('response.output_item.done', { output_index: outputIndex, item: { ...item, summary, encrypted_content: reasoning.encryptedContent } }),
  ];
}

/**
 * A reply that makes `calls` in order, each as a `function_call` output item whose arguments
 * stream in pieces of `fragment` characters, then arrive whole in `.done`; after the model's
 * `reasoning` first, when given.
 */
export function responsesToolCalls(calls: readonly ResponsesCall[], options: ResponsesMeta & { readonly fragment?: number; readonly reasoning?: ResponsesReasoning } = {}): FakeStep {
  const first = options.reasoning === undefined ? 0 : 1;
  const events = calls.flatMap((call, at) => {
    const index = at + first;
    const itemId = `fc_${at + 1}`;
    const callId = call.callId ?? `call_${at + 1}`;
    const item = { type: 'function_call', id: itemId, call_id: callId, name: call.name };
    return [
      responsesEvent('response.output_item.added', { output_index: index, item: { ...item, arguments: '' } }),
      ...split(call.args, options.fragment ?? 4).map((delta) => responsesEvent('response.function_call_arguments.delta', { output_index: index, item_id: itemId, delta })),
      responsesEvent('response.function_call_arguments.done', { output_index: index, item_id: itemId, arguments: call.args }),
      responsesEvent('response.output_item.done', { output_index: index, item: { ...item, arguments: call.args } }),
    ];
  });
  const reasoning = options.reasoning === undefined ? [] : responsesReasoningItem(options.reasoning);
  return responsesStream([responsesCreated(options), ...reasoning, ...events, responsesCompleted(options)]);
}

function responseObject(meta: ResponsesMeta, status: string): Record<string, unknown> {
  return {
    id: meta.responseId ?? RESPONSES_ID,
    object: 'response',
    model: meta.model ?? RESPONSES_MODEL,
    status,
    ...(status === 'completed' ? { usage: { input_tokens: meta.inputTokens ?? 11, output_tokens: meta.outputTokens ?? 7 } } : {}),
  };
}

function split(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += Math.max(1, size)) pieces.push(text.slice(at, at + Math.max(1, size)));
  return pieces;
}
