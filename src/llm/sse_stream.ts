import { createParser } from 'eventsource-parser';
import { abortReason, type Clock } from '../core/clock.js';
import type { AttemptLimits } from './attempt_limits.js';
import { errorFieldsOf, errorFromStatus, type ErrorContext } from './classify.js';
import { LLMTransportError } from './errors.js';
import { parseJson } from './json_fields.js';

/** One POST that answers with a stream of server-sent events. */
export interface SseRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

export interface SseOptions {
  readonly context: ErrorContext;
  readonly clock: Clock;
  /** The attempt's time limits: told when the response begins; their signal aborts the request. */
  readonly limits: AttemptLimits;
}

/**
 * What the body carried: an SSE event, or a line of bare JSON outside the SSE framing (Ollama
 * sends its errors that way).
 */
export type SseItem = { readonly kind: 'event'; readonly event: string | undefined; readonly data: string } | { readonly kind: 'json_line'; readonly value: unknown };

/**
 * POSTs `request` and yields what the response streams back. Failures come out typed: a non-2xx
 * status as the `LLMError` its status and body call for; a refused or broken connection or
 * an empty body as an {@link LLMTransportError}; an abort of the limits' signal as its reason (the
 * limit that ran out, or the caller's abort), with the request aborted at once. Comments
 * (`: OPENROUTER PROCESSING`) are skipped. Closing the limits closes the connection.
 */
export async function* streamSse(request: SseRequest, options: SseOptions): AsyncGenerator<SseItem> {
  const { clock, context, limits } = options;
  const { signal } = limits;
  if (signal.aborted) throw abortReason(signal);
  const failed = (cause: unknown): unknown => {
    if (signal.aborted) return abortReason(signal);
    return new LLMTransportError(`${context.provider} ${context.model}: connection failed: ${describeCause(cause)}`, { ...context, code: 'connection_failed', cause });
  };
  let response: Response;
  try {
    response = await fetch(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify(request.body), signal });
  } catch (error) {
    throw failed(error);
  }
  if (!response.ok) {
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw failed(error);
    }
    throw errorFromStatus(context, response.status, errorFieldsOf(parseJson(text)) ?? bodyExcerpt(text), response.headers, clock.now());
  }
  limits.responseStarted();
  const lines = new LineSplitter();
  let received = 0;
  const reader = response.body?.getReader();
  const read = async (): Promise<Uint8Array | undefined> => {
    try {
      const chunk = await reader?.read();
      return chunk === undefined || chunk.done ? undefined : (chunk.value as Uint8Array);
    } catch (error) {
      throw failed(error);
    }
  };
  for (let bytes = await read(); bytes !== undefined; bytes = await read()) {
    received += bytes.byteLength;
    yield* lines.push(bytes);
  }
  yield* lines.end();
  if (received === 0) throw new LLMTransportError(`${context.provider} ${context.model}: the response body was empty`, { ...context, code: 'empty_body', status: response.status });
}

/** Splits the body into lines, hands SSE lines to the parser and picks out bare JSON lines. */
class LineSplitter {
  readonly #decoder = new TextDecoder();
  readonly #ready: SseItem[] = [];
  readonly #parser = createParser({
    onEvent: (message) => this.#ready.push({ kind: 'event', event: message.event, data: message.data }),
  });
  #partial = '';

  push(bytes: Uint8Array): SseItem[] {
    this.#take(this.#decoder.decode(bytes, { stream: true }));
    return this.#ready.splice(0);
  }

  end(): SseItem[] {
    this.#take(`${this.#decoder.decode()}\n\n`);
    return this.#ready.splice(0);
  }

  #take(text: string): void {
    const lines = (this.#partial + text).split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) {
      const value = line.startsWith('{') ? parseJson(line) : undefined;
      if (value !== undefined) this.#ready.push({ kind: 'json_line', value });
      else this.#parser.feed(`${line}\n`);
    }
  }
}

function bodyExcerpt(text: string): { message: string } | undefined {
  const trimmed = text.trim();
  return trimmed === '' ? undefined : { message: trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed };
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner: unknown = cause.cause;
  return inner instanceof Error ? `${cause.message} (${inner.message})` : cause.message;
}
