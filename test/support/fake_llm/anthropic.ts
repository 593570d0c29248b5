/**
 * Fake Anthropic Messages streams: SSE frames as the real API sends them, and whole FakeSteps
 * built from them. Each frame is written as its own HTTP chunk.
 */
import { sse, type FakeStep } from './server.js';

type StreamStep = Extract<FakeStep, { kind: 'stream' }>;

/** What the stream says about itself; defaults are fixed so tests can assert them. */
export interface AnthropicStreamOptions {
  readonly model?: string;
  readonly id?: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /** Prompt-cache counts `message_start` reports beside `input_tokens`; absent unless given. */
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
}

/** A tool call to stream: `args` is the raw JSON text, sent in input_json_delta fragments. */
export interface AnthropicCall {
  readonly id: string;
  readonly name: string;
  readonly args: string;
}

export const ANTHROPIC_DEFAULTS = { model: 'claude-test-1', id: 'msg_test_1', inputTokens: 21, outputTokens: 8 } as const;

/** `message_start`, followed by a `ping` as the real API sends. */
export function anthropicStart(options: AnthropicStreamOptions = {}): string[] {
  const { model, id, inputTokens, cacheReadTokens, cacheWriteTokens } = { ...ANTHROPIC_DEFAULTS, ...options };
  const cache = {
    ...(cacheWriteTokens === undefined ? {} : { cache_creation_input_tokens: cacheWriteTokens }),
    ...(cacheReadTokens === undefined ? {} : { cache_read_input_tokens: cacheReadTokens }),
  };
  const message = { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage: { input_tokens: inputTokens, ...cache, output_tokens: 1 } };
  return [anthropicEvent('message_start', { message }), anthropicEvent('ping', {})];
}

/** One text block at `index`, one `text_delta` per piece. */
export function anthropicTextBlock(index: number, pieces: readonly string[]): string[] {
  return [
    anthropicEvent('content_block_start', { index, content_block: { type: 'text', text: '' } }),
    ...pieces.map((text) => anthropicEvent('content_block_delta', { index, delta: { type: 'text_delta', text } })),
    anthropicEvent('content_block_stop', { index }),
  ];
}

/** One tool_use block at `index`, its arguments split into `fragment`-character input_json_deltas. */
export function anthropicToolUseBlock(index: number, call: AnthropicCall, fragment: number): string[] {
  const parts: string[] = [];
  for (let at = 0; at < call.args.length; at += fragment) parts.push(call.args.slice(at, at + fragment));
  return [
    anthropicEvent('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } }),
    ...parts.map((partial_json) => anthropicEvent('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } })),
    anthropicEvent('content_block_stop', { index }),
  ];
}

/** `message_delta`: the stop reason and output tokens. */
export function anthropicMessageDelta(stopReason: string, options: AnthropicStreamOptions = {}): string {
  const { outputTokens } = { ...ANTHROPIC_DEFAULTS, ...options };
  return anthropicEvent('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } });
}

/** `message_delta`, then the terminal `message_stop`. */
export function anthropicFinish(stopReason: string, options: AnthropicStreamOptions = {}): string[] {
  return [anthropicMessageDelta(stopReason, options), anthropicEvent('message_stop', {})];
}

/**
 * A text answer, one `text_delta` per string of `text`, stopping for `stopReason` (default
 * `end_turn`). `then`: `done` (default) finishes with `message_delta` and `message_stop`;
 * `truncate` sends the `message_delta` and ends the body without `message_stop`; `stall` keeps
 * the connection open right after the text.
 */
export function anthropicText(text: string | readonly string[], options: AnthropicStreamOptions & { readonly stopReason?: string; readonly then?: 'done' | 'truncate' | 'stall' } = {}): StreamStep {
  const body = [...anthropicStart(options), ...anthropicTextBlock(0, typeof text === 'string' ? [text] : text)];
  const { stopReason = 'end_turn', then = 'done' } = options;
  switch (then) {
    case 'done':
      return { kind: 'stream', chunks: [...body, ...anthropicFinish(stopReason, options)] };
    case 'truncate':
      return { kind: 'stream', chunks: [...body, anthropicMessageDelta(stopReason, options)] };
    case 'stall':
      return { kind: 'stream', chunks: body, then: 'stall' };
    default: {
      const unreachable: never = then;
      throw new Error(`unknown ending ${String(unreachable)}`);
    }
  }
}

/** An answer that calls tools, after an optional text block; arguments arrive `fragment` characters at a time. */
export function anthropicToolUse(calls: readonly AnthropicCall[], options: AnthropicStreamOptions & { readonly fragment?: number; readonly text?: string } = {}): StreamStep {
  const { fragment = 5, text } = options;
  const first = text === undefined ? 0 : 1;
  return {
    kind: 'stream',
    chunks: [
      ...anthropicStart(options),
      ...(text === undefined ? [] : anthropicTextBlock(0, [text])),
      ...calls.flatMap((call, i) => anthropicToolUseBlock(first + i, call, fragment)),
      ...anthropicFinish('tool_use', options),
    ],
  };
}

/** An in-stream `event: error` frame, as Anthropic sends when it fails after answering 200. */
export function anthropicError(type: string, message: string): string {
  return anthropicEvent('error', { error: { type, message } });
}

/** An HTTP error response with Anthropic's error body. */
export function anthropicErrorReply(status: number, type: string, message: string): FakeStep {
  return { kind: 'reply', status, body: { type: 'error', error: { type, message } } };
}

/** A frame whose event name and data `type` agree, as Anthropic's always do. */
export function anthropicEvent(type: string, fields: Readonly<Record<string, unknown>>): string {
  return sse({ type, ...fields }, type);
}
