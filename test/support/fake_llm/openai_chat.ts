/**
 * FakeSteps in the OpenAI Chat Completions streaming format. For anything these do not cover,
 * write `{ kind: 'stream', chunks: [chatChunk(...), CHAT_DONE] }` by hand.
 */
import { sse, type FakeStep } from './server.js';

type StreamStep = Extract<FakeStep, { kind: 'stream' }>;

export interface ChatUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
}

/** The terminal frame. */
export const CHAT_DONE = 'data: [DONE]\n\n';

/** One `chat.completion.chunk` frame whose first choice carries `delta` (and `finish_reason`, when given). */
export function chatChunk(delta: Record<string, unknown>, options: { readonly finishReason?: string; readonly model?: string } = {}): string {
  return sse({
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    model: options.model ?? 'test-model',
    choices: [{ index: 0, delta, finish_reason: options.finishReason ?? null }],
  });
}

/**
 * A streamed text answer, one delta per string of `text`. `then`: `done` (default) finishes with
 * the finish reason, a usage chunk and `[DONE]`; `truncate` ends the body right after the text;
 * `stall` keeps the connection open after the text.
 */
export function chatText(
  text: string | readonly string[],
  options: { readonly model?: string; readonly usage?: ChatUsage; readonly finishReason?: string; readonly then?: 'done' | 'truncate' | 'stall' } = {},
): StreamStep {
  const model = options.model ?? 'test-model';
  const deltas = typeof text === 'string' ? [text] : text;
  const body = [chatChunk({ role: 'assistant', content: '' }, { model }), ...deltas.map((content) => chatChunk({ content }, { model }))];
  const then = options.then ?? 'done';
  switch (then) {
    case 'truncate':
      return { kind: 'stream', chunks: body };
    case 'stall':
      return { kind: 'stream', chunks: body, then: 'stall' };
    case 'done':
      return { kind: 'stream', chunks: [...body, chatChunk({}, { model, finishReason: options.finishReason ?? 'stop' }), ...usageFrame(model, options.usage), CHAT_DONE] };
    default: {
      const unreachable: never = then;
      throw new Error(`unknown ending ${String(unreachable)}`);
    }
  }
}

/**
 * Streamed tool calls, one after another as OpenAI sends them: the first chunk of a call names
 * it (and gives its id, when it has one), the next ones carry its arguments `fragment`
 * characters at a time; a usage chunk follows the finish reason when `usage` is given.
 */
export function chatToolCalls(
  calls: readonly { readonly id?: string; readonly name: string; readonly args: string }[],
  options: { readonly fragment?: number; readonly usage?: ChatUsage } = {},
): StreamStep {
  const fragment = options.fragment ?? 5;
  const frames = calls.flatMap((call, index) => [
    chatChunk({ tool_calls: [{ index, ...(call.id === undefined ? {} : { id: call.id }), type: 'function', function: { name: call.name, arguments: '' } }] }),
    ...pieces(call.args, fragment).map((args) => chatChunk({ tool_calls: [{ index, function: { arguments: args } }] })),
  ]);
  return { kind: 'stream', chunks: [chatChunk({ role: 'assistant', content: null }), ...frames, chatChunk({}, { finishReason: 'tool_calls' }), ...usageFrame('test-model', options.usage), CHAT_DONE] };
}

/** A 200 stream that sends `before` frames, then one frame of `payload`, then ends. */
export function chatError(payload: unknown, before: readonly string[] = []): StreamStep {
  return { kind: 'stream', chunks: [...before, sse(payload)] };
}

function usageFrame(model: string, usage: ChatUsage | undefined): string[] {
  return usage === undefined
    ? []
    : [sse({ id: 'chatcmpl-test', object: 'chat.completion.chunk', model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })];
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}
