import { createParser } from 'eventsource-parser';
import { abortReason, type Clock } from '../core/clock.js';
import { errorFieldsOf, errorFromStatus, type ErrorContext } from './classify.js';
import { LLMTransportError, type LLMError } from './errors.js';
import { parseJson } from './json_fields.js';
import { StallWatchdog } from './stall_watchdog.js';

/** One POST that answers with a stream of server-sent events. */
export interface SseRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

export interface SseOptions {
  readonly context: ErrorContext;
  readonly clock: Clock;
  /** How long to wait for the response headers. */
  readonly requestTimeoutMs: number;
  /** How long the body may stay silent before the stream counts as stalled. */
  readonly stallTimeoutMs: number;
  readonly signal: AbortSignal;
}

/**
 * What the body carried: an SSE event, or a line of bare JSON outside the SSE framing (Ollama
 * sends its errors that way).
 */
export type SseItem =
  | { readonly kind: 'event'; readonly event: string | undefined; readonly data: string }
  | { readonly kind: 'json_line'; readonly value: unknown };

/**
 * POSTs `request` and yields what the response streams back. Failures come out typed: a non-2xx
 * status as the {@link LLMError} its status and body call for; a refused or broken connection, a
 * missed header deadline, a silent body or an empty one as an {@link LLMTransportError}; an abort
 * of `options.signal` as the signal's own reason, with the request aborted at once. Comments
 * (`: OPENROUTER PROCESSING`) are skipped. Stopping the iteration closes the connection.
 */
export async function* streamSse(request: SseRequest, options: SseOptions): AsyncGenerator<SseItem> {
  const { signal, clock, context } = options;
  if (signal.aborted) throw abortReason(signal);
  const controller = new AbortController();
  let failure: LLMError | undefined;
  const fail = (code: string, message: string) => (): void => {
    failure = new LLMTransportError(`${context.provider} ${context.model}: ${message}`, { ...context, code });
    controller.abort(failure);
  };
  const onAbort = (): void => controller.abort(abortReason(signal));
  signal.addEventListener('abort', onAbort, { once: true });
  const watchdog = new StallWatchdog(clock, options.requestTimeoutMs, fail('request_timeout', `no response within ${options.requestTimeoutMs} ms`));
  const failed = (cause: unknown): unknown => {
    if (signal.aborted) return abortReason(signal);
    return failure ?? new LLMTransportError(`${context.provider} ${context.model}: connection failed: ${describeCause(cause)}`, { ...context, code: 'connection_failed', cause });
  };
  try {
    let response: Response;
    try {
      response = await fetch(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify(request.body), signal: controller.signal });
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
    watchdog.rearm(options.stallTimeoutMs, fail('stream_stalled', `the stream sent nothing for ${options.stallTimeoutMs} ms`));
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
      watchdog.progress();
      received += bytes.byteLength;
      yield* lines.push(bytes);
    }
    yield* lines.end();
    if (received === 0) throw new LLMTransportError(`${context.provider} ${context.model}: the response body was empty`, { ...context, code: 'empty_body', status: response.status });
  } finally {
    watchdog.stop();
    signal.removeEventListener('abort', onAbort);
    controller.abort();
  }
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
