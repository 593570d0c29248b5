import type { GenerateResponse, JsonObject, Provenance, ReasoningBlock, ResponseBlock, StopReason, ToolUseBlock, Usage } from './protocol.js';
import type { StreamEvent } from './provider.js';
import { jsonTextDepth, MAX_JSON_DEPTH } from '../core/json_bounds.js';
import { ThinkBlocks, type SplitText } from './think_blocks.js';

interface PendingCall {
  id: string;
  name: string;
  readonly args: string[];
  announced: boolean;
}

type PendingBlock = { readonly kind: 'text'; readonly parts: string[] } | { readonly kind: 'call'; readonly call: PendingCall } | { readonly kind: 'reasoning'; readonly block: ReasoningBlock };

/**
 * Builds one response out of streamed pieces, whatever the protocol: text deltas, tool calls
 * whose arguments arrive in fragments, the stop reason, usage and provenance. Adapters feed it;
 * it queues the stream events to yield and turns tool-call arguments into parsed inputs. The
 * model's reasoning, streamed apart or written as `<think>` blocks ahead of its text
 * ({@link ThinkBlocks}), is never part of the response's text. Each piece of data it is fed
 * (anything but provenance and empty pieces) is reported to `onData`, the proof that the stream
 * is alive.
 */
export class ResponseAssembler {
  readonly #blocks: PendingBlock[] = [];
  readonly #calls = new Map<string, PendingCall>();
  readonly #events: StreamEvent[] = [];
  #stopReason: StopReason = 'other';
  #usage: Usage | undefined;
  #provenance: Provenance;
  readonly #onData: () => void;
  readonly #thinking = new ThinkBlocks();

  constructor(provenance: Provenance, onData: () => void = () => undefined) {
    this.#provenance = provenance;
    this.#onData = onData;
  }

  addText(text: string): void {
    if (text === '') return;
    this.#onData();
    this.#split(this.#thinking.push(text));
  }

  /** The text is over (the stream finished): what was held back in case it began a `<think>` tag goes where it belongs. */
  endText(): void {
    this.#split(this.#thinking.end());
  }

  #split({ reasoning, text }: SplitText): void {
    if (reasoning !== '') this.#events.push({ type: 'reasoning_delta' });
    if (text === '') return;
    const last = this.#blocks.at(-1);
    if (last?.kind === 'text') last.parts.push(text);
    else this.#blocks.push({ kind: 'text', parts: [text] });
    this.#events.push({ type: 'text_delta', text });
  }

  /**
   * Starts or continues the tool call the protocol identifies by `key` (an index or an item id).
   * A new id under a key whose call already has one starts a new call, for servers that reuse
   * an index across calls.
   */
  toolCallDelta(key: string, part: { readonly id?: string | undefined; readonly name?: string | undefined; readonly arguments?: string | undefined }): void {
    if ([part.id, part.name, part.arguments].some((piece) => piece !== undefined && piece !== '')) this.#onData();
    let call = this.#calls.get(key);
    if (call === undefined || (part.id !== undefined && part.id !== '' && call.id !== '' && part.id !== call.id)) {
      call = { id: '', name: '', args: [], announced: false };
      this.#calls.set(key, call);
      this.#blocks.push({ kind: 'call', call });
    }
    if (part.id !== undefined && part.id !== '' && call.id === '') call.id = part.id;
    if (part.name !== undefined && part.name !== '' && call.name === '') call.name = part.name;
    if (part.arguments !== undefined && part.arguments !== '') call.args.push(part.arguments);
    if (!call.announced && call.name !== '') {
      call.announced = true;
      this.#events.push({ type: 'tool_call_started', id: call.id, name: call.name });
    }
  }

  /** Whether a tool call was started under `key`. */
  hasToolCall(key: string): boolean {
    return this.#calls.has(key);
  }

  /** Replaces a tool call's arguments with the complete text, for protocols that resend them whole at the end. */
  toolCallArguments(key: string, complete: string): void {
    this.#onData();
    const call = this.#calls.get(key);
    if (call !== undefined) call.args.splice(0, call.args.length, complete);
  }

  /** The model's reasoning as it streams: not part of the response, but data all the same. */
  addReasoning(text: string): void {
    if (text === '') return;
    this.#onData();
    this.#events.push({ type: 'reasoning_delta' });
  }

  /** A finished reasoning item the provider needs back with the step's tool results, in its place among the blocks. */
  addReasoningItem(encryptedContent: string, summary: readonly string[]): void {
    this.#onData();
    this.#blocks.push({ kind: 'reasoning', block: { type: 'reasoning', encryptedContent, summary } });
  }

  setStopReason(reason: StopReason): void {
    this.#onData();
    this.#stopReason = reason;
  }

  /** Records the token counts the stream reported; an absent count leaves the one known before. */
  setUsage(usage: { readonly [K in keyof Usage]?: number | undefined }): void {
    if (Object.values(usage).every((count) => count === undefined)) return;
    this.#onData();
    const known = this.#usage;
    const cacheReadTokens = usage.cacheReadTokens ?? known?.cacheReadTokens;
    const cacheWriteTokens = usage.cacheWriteTokens ?? known?.cacheWriteTokens;
    const reasoningTokens = usage.reasoningTokens ?? known?.reasoningTokens;
    this.#usage = {
      inputTokens: usage.inputTokens ?? known?.inputTokens ?? null,
      outputTokens: usage.outputTokens ?? known?.outputTokens ?? null,
      ...(cacheReadTokens === undefined ? {} : { cacheReadTokens }),
      ...(cacheWriteTokens === undefined ? {} : { cacheWriteTokens }),
      ...(reasoningTokens === undefined ? {} : { reasoningTokens }),
    };
  }

  /** The token counts the stream has reported so far; `undefined` while it has reported none. */
  reportedUsage(): Usage | undefined {
    return this.#usage;
  }

  setProvenance(update: { readonly model?: string | undefined; readonly responseId?: string | undefined }): void {
    const { model, responseId } = update;
    this.#provenance = {
      ...this.#provenance,
      ...(model === undefined || model === '' ? {} : { model }),
      ...(responseId === undefined || responseId === '' ? {} : { responseId }),
    };
  }

  /** The events produced since the last call. */
  drainEvents(): StreamEvent[] {
    return this.#events.splice(0);
  }

  /** The finished response ({@link endText} is called first). Calls without an id get `call_<n>`, numbered in order of appearance. */
  toResponse(): GenerateResponse {
    this.endText();
    let ordinal = 0;
    const content = this.#blocks.map((block): ResponseBlock => {
      if (block.kind === 'text') return { type: 'text', text: block.parts.join('') };
      if (block.kind === 'reasoning') return block.block;
      ordinal += 1;
      const { call } = block;
      return { type: 'tool_use', id: call.id === '' ? `call_${ordinal}` : call.id, name: call.name, ...parseArguments(call.args.join('')) };
    });
    const hasCalls = content.some((block) => block.type === 'tool_use');
    const stopReason = hasCalls && (this.#stopReason === 'end_turn' || this.#stopReason === 'other') ? 'tool_use' : this.#stopReason;
    return { content, stopReason, usage: this.#usage ?? { inputTokens: null, outputTokens: null }, provenance: this.#provenance };
  }
}

/**
 * A tool call's arguments as an object; anything else is kept as malformed, with the reason, and
 * so are arguments nested deeper than {@link MAX_JSON_DEPTH} (DESIGN §9.3): nothing walks them.
 */
function parseArguments(raw: string): Pick<ToolUseBlock, 'input' | 'malformedInput'> {
  if (raw.trim() === '') return { input: {} };
  if (jsonTextDepth(raw) > MAX_JSON_DEPTH) return { input: {}, malformedInput: { raw, reason: `the arguments nest deeper than ${MAX_JSON_DEPTH} levels` } };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { input: {}, malformedInput: { raw, reason: `the arguments are not valid JSON (${error instanceof Error ? error.message : String(error)})` } };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { input: {}, malformedInput: { raw, reason: 'the arguments are not a JSON object' } };
  }
  return { input: value as JsonObject };
}
