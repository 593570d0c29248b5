/**
 * The provider-neutral model protocol (DESIGN §4): what a turn sends to a model and what it gets
 * back, whichever provider serves it.
 */

export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** A JSON value, as tool inputs and structured results carry. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
}

/** An image, inline as base64 bytes or by reference to a stored blob. */
export interface ImageBlock {
  readonly type: 'image';
  readonly mediaType: string;
  readonly source: { readonly kind: 'base64'; readonly data: string } | { readonly kind: 'blob'; readonly ref: string };
}

/**
 * A tool call the model proposed. When the model's arguments were not a JSON object, `input` is
 * empty and `malformedInput` keeps what it sent and why it was refused, so the call can be
 * answered with an error result instead of being run.
 */
export interface ToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: JsonObject;
  readonly malformedInput?: { readonly raw: string; readonly reason: string };
}

/** The answer to one tool call, matched to it by `toolUseId`. */
export interface ToolResultBlock {
  readonly type: 'tool_result';
  readonly toolUseId: string;
  readonly content: string;
  readonly isError: boolean;
}

/**
 * The model's reasoning for one step, as OpenAI's Responses API returns it when it keeps nothing
 * itself (`store: false`): encrypted, opaque to everyone else, and sent back to it with the tool
 * results of that step so that the next step goes on from the same reasoning. Only an assistant
 * message holds it; the other protocols leave it out of what they send.
 */
export interface ReasoningBlock {
  readonly type: 'reasoning';
  readonly encryptedContent: string;
  /** The readable summary of the reasoning the provider gave with it, part by part (often none). */
  readonly summary: readonly string[];
}

export type ContentBlock = TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | ReasoningBlock;

/** What a model's answer is made of. */
export type ResponseBlock = TextBlock | ToolUseBlock | ReasoningBlock;

export interface Message {
  readonly role: Role;
  readonly content: readonly ContentBlock[];
}

/** A tool the model may call; `inputSchema` is a JSON Schema for an object. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
}

export interface GenerateRequest {
  readonly system?: string;
  readonly messages: readonly Message[];
  readonly tools?: readonly ToolDefinition[];
  /** `none` asks for an answer without tool calls even though tools are listed. */
  readonly toolChoice?: 'auto' | 'none';
  /** Overrides the configured `llm.max_tokens` for this request. */
  readonly maxTokens?: number;
  readonly temperature?: number;
}

/** Why the model stopped. */
export const STOP_REASONS = ['end_turn', 'tool_use', 'max_tokens', 'content_filter', 'other'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/**
 * The tokens one response used, as the provider reported them (`null` or absent: not reported,
 * which is unknown, not zero). `inputTokens` counts every input token, cached ones included, and
 * `outputTokens` every output token, reasoning included. The other counts are parts of those, each
 * present only from the providers that report it.
 */
export interface Usage {
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  /** Of the input, the tokens read from the prompt cache (Anthropic, both OpenAI APIs and the servers that copy them). */
  readonly cacheReadTokens?: number;
  /** Of the input, the tokens written to the prompt cache (Anthropic). */
  readonly cacheWriteTokens?: number;
  /** Of the output, the tokens spent on reasoning (both OpenAI APIs and the servers that copy them). */
  readonly reasoningTokens?: number;
}

/** Which provider and model produced a response: the subsystem guard clears a latch only with it. */
export interface Provenance {
  readonly provider: string;
  readonly model: string;
  readonly responseId?: string;
}

export interface GenerateResponse {
  readonly content: readonly ResponseBlock[];
  readonly stopReason: StopReason;
  readonly usage: Usage;
  readonly provenance: Provenance;
}

/** The tool calls a message proposed, in order. */
export function toolUses(message: { readonly content: readonly ContentBlock[] }): ToolUseBlock[] {
  return message.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
}
