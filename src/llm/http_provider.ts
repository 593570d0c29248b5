import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { ResponseAssembler } from './assembler.js';
import { AttemptLimits, type AttemptLimitSettings } from './attempt_limits.js';
import { AuthFailureLog } from './auth_failure_log.js';
import type { ErrorContext } from './classify.js';
import { isLLMError, isLLMErrorOfKind, LLMTransportError, withUsage } from './errors.js';
import type { GenerateRequest } from './protocol.js';
import { streamSse, type SseItem, type SseRequest } from './sse_stream.js';
import type { LLMProvider, StreamEvent } from './provider.js';

/** What an adapter needs to know to talk to one endpoint. */
export interface ProviderSettings {
  readonly provider: string;
  /** The API root without a trailing slash. */
  readonly baseUrl: string;
  readonly model: string;
  readonly maxTokens: number;
  readonly temperature?: number | undefined;
  readonly headers: Readonly<Record<string, string>>;
}

/** One model API's wire format: how to ask, and how to read the streamed answer. */
export interface WireProtocol {
  /** The HTTP request for `request`, authenticated with `apiKey` when there is one. */
  buildRequest(request: GenerateRequest, settings: ProviderSettings, apiKey: string | undefined): SseRequest;
  /**
   * Applies one streamed item to the response being assembled. Returns `true` for the stream's
   * terminal event. An error frame throws the `LLMError` it stands for.
   */
  apply(item: SseItem, assembler: ResponseAssembler, context: ErrorContext): boolean;
}

export interface HttpProviderOptions {
  readonly settings: ProviderSettings;
  readonly protocol: WireProtocol;
  /** Keys tried in turn when one is rate limited; empty for servers that need none. */
  readonly apiKeys: readonly string[];
  readonly limits: AttemptLimitSettings;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * A provider over HTTP and SSE. It never retries by itself (DESIGN §4), except that an HTTP 429
 * hands the request to the next API key; the rate-limit error escapes once every key has been
 * refused. Capacity errors never rotate keys: another key does not make the model less busy.
 * An attempt that fails after its stream reported usage throws an error carrying that usage.
 */
export class HttpProvider implements LLMProvider {
  readonly provider: string;
  readonly model: string;
  readonly #options: HttpProviderOptions;
  readonly #authFailures: AuthFailureLog;
  #keyIndex = 0;

  constructor(options: HttpProviderOptions) {
    this.#options = options;
    this.#authFailures = new AuthFailureLog(options.logger, options.apiKeys.length);
    this.provider = options.settings.provider;
    this.model = options.settings.model;
  }

  async *stream(request: GenerateRequest, { signal }: { readonly signal: AbortSignal }): AsyncGenerator<StreamEvent> {
    const { settings, protocol, apiKeys, clock } = this.#options;
    const context: ErrorContext = { provider: this.provider, model: this.model };
    const keyCount = Math.max(1, apiKeys.length);
    for (let tried = 1; ; tried++) {
      const keyIndex = this.#keyIndex % keyCount;
      const limits = new AttemptLimits(clock, context, this.#options.limits, signal);
      const assembler = new ResponseAssembler({ provider: this.provider, model: this.model }, () => limits.dataArrived());
      let yielded = false;
      try {
        const items = streamSse(protocol.buildRequest(request, settings, apiKeys[keyIndex]), { context, clock, limits });
        let finished = false;
        for await (const item of items) {
          finished = protocol.apply(item, assembler, context);
          for (const event of assembler.drainEvents()) {
            yielded = true;
            yield event;
          }
          if (finished) break;
        }
        if (!finished) {
          throw new LLMTransportError(`${this.provider} ${this.model}: the stream ended before its final event`, { ...context, code: 'stream_truncated' });
        }
        assembler.endText();
        yield* assembler.drainEvents();
      } catch (error) {
        if (isLLMErrorOfKind(error, 'auth')) this.#authFailures.refused(error, keyIndex + 1);
        const rotate = !yielded && tried < keyCount && isLLMErrorOfKind(error, 'rate_limit') && error.status === 429;
        if (!rotate) throw withReportedUsage(error, assembler);
        this.#keyIndex = keyIndex + 1;
        this.#options.logger.warn({ provider: this.provider, model: this.model, key: keyIndex + 1, of: keyCount }, 'API key rate limited; trying the next key');
        continue;
      } finally {
        limits.close();
      }
      yield { type: 'done', response: assembler.toResponse() };
      return;
    }
  }
}

/** A model error carrying the usage the stream had reported before it failed; anything else (the caller's abort) as it is. */
function withReportedUsage(error: unknown, assembler: ResponseAssembler): unknown {
  const usage = assembler.reportedUsage();
  return usage !== undefined && isLLMError(error) ? withUsage(error, usage) : error;
}
