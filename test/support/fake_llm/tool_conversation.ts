/**
 * A model that answers by itself in the OpenAI Chat Completions format, as the load bench and the
 * storm test need it: every turn asks for a `read`, then a `write` carrying the turn's token, then
 * streams a reply, each after a configurable time to first token, the reply at a configurable
 * pace; some requests may be answered "overloaded" instead.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { CHAT_DONE, chatChunk, chatToolCalls } from './openai_chat.js';
import type { FakeStep, RecordedRequest } from './server.js';

/** How the model answers. */
export interface ToolConversationOptions {
  /** Time from a request's arrival to its first token, in ms (0: at once). */
  readonly ttftMs: number;
  /** The pace of the reply's tokens after the first (0: all at once). */
  readonly tokensPerSecond: number;
  /** How many tokens the final reply has, its end marker included. */
  readonly replyTokens: number;
  /** Whether to answer this request 529 `overloaded_error` instead (checked first, for every request). */
  readonly overloaded?: (request: RecordedRequest) => boolean;
}

/** What a request was answered with: the step of the turn it served, or an overload; `unknown` when it named no turn. */
export type ModelCallKind = 'read' | 'write' | 'reply' | 'overloaded' | 'unknown';

/** One request the model answered: which turn it served, how, and its timings (on the request). */
export interface ModelCall {
  readonly token: string | undefined;
  readonly kind: ModelCallKind;
  readonly request: RecordedRequest;
}

/** A turn's token: which conversation (channel index) and which of its messages, as the member's text carries it. */
export function turnToken(channel: number, turn: number): string {
  return `ch${channel}-t${turn}`;
}

/** What the member writes to start turn `token`. */
export function turnMessage(token: string): string {
  return `msg ${token}`;
}

/** The end of the final reply of turn `token`: once a message shows it, the whole reply is visible. */
export function replyEnd(token: string): string {
  return `[end ${token}]`;
}

/** The token a piece of text names, if any. */
export function tokenIn(text: string): string | undefined {
  return /\bch\d+-t\d+\b/.exec(text)?.[0];
}

/** The final reply of turn `token`, as the model streams it, one string per token. */
export function replyTokens(token: string, count: number): string[] {
  const words = Array.from({ length: Math.max(0, count - 2) }, (_, index) => ` word${index + 1}`);
  return [token, ...words, ` ${replyEnd(token)}`];
}

const OVERLOADED: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error', message: 'Overloaded' } } };

interface ChatMessage {
  readonly role?: unknown;
  readonly content?: unknown;
}

/** The request's messages from its last user message on: that message's text and how many tool results follow it. */
function currentTurn(body: unknown): { readonly text: string; readonly toolResults: number } {
  const messages = typeof body === 'object' && body !== null && Array.isArray((body as { messages?: unknown }).messages) ? (body as { messages: ChatMessage[] }).messages : [];
  const last = messages.findLastIndex((message) => message.role === 'user');
  if (last < 0) return { text: '', toolResults: 0 };
  const content = messages[last]?.content;
  const text = typeof content === 'string' ? content : JSON.stringify(content ?? '');
  return { text, toolResults: messages.slice(last + 1).filter((message) => message.role === 'tool').length };
}

/** The model's side of many conversations at once; give {@link ToolConversation.respond} to `FakeLLMServer.respondWith`. */
export class ToolConversation {
  /** Every request answered, in arrival order. */
  readonly calls: ModelCall[] = [];

  constructor(private readonly options: ToolConversationOptions) {}

  /** The step for one request, recorded in {@link ToolConversation.calls}. */
  readonly respond = (request: RecordedRequest): FakeStep => {
    const { text, toolResults } = currentTurn(request.body);
    const token = tokenIn(text);
    const kind: ModelCallKind = this.options.overloaded?.(request) === true ? 'overloaded' : token === undefined ? 'unknown' : toolResults === 0 ? 'read' : toolResults === 1 ? 'write' : 'reply';
    this.calls.push({ token, kind, request });
    switch (kind) {
      case 'overloaded':
        return OVERLOADED;
      case 'unknown':
        return this.#streamed(['I cannot tell which conversation this is.']);
      case 'read':
        return this.#paced(chatToolCalls([{ id: `call-read-${token}`, name: 'read', args: JSON.stringify({ token }) }], { fragment: 1_000 }));
      case 'write':
        return this.#paced(chatToolCalls([{ id: `call-write-${token}`, name: 'write', args: JSON.stringify({ token, text: `note for ${token}` }) }], { fragment: 1_000 }));
      case 'reply':
        return this.#streamed(replyTokens(token ?? '', this.options.replyTokens));
      default: {
        const unreachable: never = kind;
        throw new Error(`unknown call kind ${String(unreachable)}`);
      }
    }
  };

  /** A whole stream held back until the time to first token has passed. */
  #paced(step: Extract<FakeStep, { kind: 'stream' }>): FakeStep {
    return this.options.ttftMs > 0 ? { ...step, chunks: [delay(this.options.ttftMs), ...step.chunks] } : step;
  }

  /** A streamed text answer: the first token after the time to first token, each next one at the configured pace. */
  #streamed(tokens: readonly string[]): FakeStep {
    const { ttftMs, tokensPerSecond } = this.options;
    const interval = tokensPerSecond > 0 ? 1000 / tokensPerSecond : 0;
    const chunks: (string | Promise<void>)[] = [];
    tokens.forEach((content, index) => {
      const due = ttftMs + index * interval;
      if (due > 0) chunks.push(delay(due));
      if (index === 0) chunks.push(chatChunk({ role: 'assistant', content: '' }));
      chunks.push(chatChunk({ content }));
    });
    return { kind: 'stream', chunks: [...chunks, chatChunk({}, { finishReason: 'stop' }), CHAT_DONE] };
  }
}
