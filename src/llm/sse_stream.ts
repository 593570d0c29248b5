import { createParser } from 'eventsource-parser';
import { request as undiciRequest, type Dispatcher } from 'undici';
import { abortReason, type Clock } from '../core/clock.js';
import type { AttemptLimits } from './attempt_limits.js';
import { errorFieldsOf, errorFromStatus, type ErrorContext } from './classify.js';
import { headerLookup, modelDispatcher } from '../core/undici_http.js';
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
 * POSTs `request` on the models' keep-alive connections and yields what the response streams
 * back, as the bytes arrive. Failures come out typed: a non-2xx status as the `LLMError` its
 * status and body call for; a refused or broken connection or an empty body as an
 * {@link LLMTransportError}; an abort of the limits' signal as its reason (the limit that ran out,
 * or the caller's abort), with the request aborted at once. Comments (`: OPENROUTER PROCESSING`)
 * are skipped. A body left unread when the caller stops is dropped, and with it its connection
 * unless the response had already ended.
 */
export async function* streamSse(request: SseRequest, options: SseOptions): AsyncGenerator<SseItem> {
  const { clock, context, limits } = options;
  const { signal } = limits;
  if (signal.aborted) throw abortReason(signal);
  const failed = (cause: unknown): unknown => {
    if (signal.aborted) return abortReason(signal);
    return new LLMTransportError(`${context.provider} ${context.model}: connection failed: ${describeCause(cause)}`, { ...context, code: 'connection_failed', cause });
  };
  let response: Dispatcher.ResponseData;
  try {
    response = await undiciRequest(request.url, { dispatcher: modelDispatcher, method: 'POST', headers: request.headers, body: JSON.stringify(request.body), signal });
  } catch (error) {
    throw failed(error);
  }
  const { statusCode, headers, body } = response;
  if (statusCode < 200 || statusCode > 299) {
    let text: string;
    try {
      text = await body.text();
    } catch (error) {
      throw failed(error);
    }
    throw errorFromStatus(context, statusCode, errorFieldsOf(parseJson(text)) ?? bodyExcerpt(text), headerLookup(headers), clock.now());
  }
  limits.responseStarted();
  const lines = new LineSplitter();
  let received = 0;
  try {
    for await (const bytes of body as AsyncIterable<Uint8Array>) {
      received += bytes.byteLength;
      yield* lines.push(bytes);
    }
  } catch (error) {
    throw failed(error);
  }
  yield* lines.end();
  if (received === 0) throw new LLMTransportError(`${context.provider} ${context.model}: the response body was empty`, { ...context, code: 'empty_body', status: statusCode });
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
