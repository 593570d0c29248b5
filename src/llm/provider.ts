import type { GenerateRequest, GenerateResponse } from './protocol.js';

/**
 * What a provider's stream yields: text as it arrives (for live replies), that the model is
 * reasoning (never what it reasons: that is not shown), each tool call as it begins, and finally
 * the whole response.
 */
export type StreamEvent =
  | { readonly type: 'text_delta'; readonly text: string }
  | { readonly type: 'reasoning_delta' }
  | { readonly type: 'tool_call_started'; readonly id: string; readonly name: string }
  | { readonly type: 'done'; readonly response: GenerateResponse };

/** A model behind some provider's API. */
export interface LLMProvider {
  /** The configured provider name (`openai`, `openai-responses`, `anthropic`). */
  readonly provider: string;
  readonly model: string;
  /**
   * Streams one generation. Fails with a typed `LLMError`; an abort of `signal` aborts the HTTP
   * request at once and surfaces as the signal's reason, never as an `LLMError`.
   */
  stream(request: GenerateRequest, options: { readonly signal: AbortSignal }): AsyncIterable<StreamEvent>;
}

/** Consumes a stream, showing each event to `onEvent`, and returns its response. */
export async function collectResponse(events: AsyncIterable<StreamEvent>, onEvent?: (event: StreamEvent) => void): Promise<GenerateResponse> {
  for await (const event of events) {
    onEvent?.(event);
    if (event.type === 'done') return event.response;
  }
  throw new Error('the stream ended without a response');
}
