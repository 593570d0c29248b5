import { abortReason, type Clock } from '../core/clock.js';
import { RELEASED } from '../core/linked_abort.js';
import type { ErrorContext } from './classify.js';
import { LLMTransportError } from './errors.js';
import { StallWatchdog } from './stall_watchdog.js';

/** How long one attempt at a model call may take, phase by phase. */
export interface AttemptLimitSettings {
  /** How long to wait for the response headers. */
  readonly requestTimeoutMs: number;
  /** How long the response may go without data (text, a tool-call fragment, usage, a finish) before it counts as stalled. */
  readonly stallTimeoutMs: number;
  /** How long the whole attempt may take, however steadily it streams. */
  readonly maxResponseMs: number;
}

/**
 * The time limits of one attempt, on the Clock port: the response must begin within the request
 * timeout, then bring data before each stall timeout runs out, and end within the maximum
 * response time. A limit that runs out aborts {@link signal} with the {@link LLMTransportError}
 * naming it (`request_timeout`, `stream_stalled`, `response_timeout`), which the recovery policy
 * retries; an abort of the caller's signal aborts it with the caller's reason.
 */
export class AttemptLimits {
  readonly #controller = new AbortController();
  readonly #settings: AttemptLimitSettings;
  readonly #context: ErrorContext;
  readonly #watchdog: StallWatchdog;
  readonly #callerSignal: AbortSignal;
  readonly #onCallerAbort = (): void => this.#controller.abort(abortReason(this.#callerSignal));

  constructor(clock: Clock, context: ErrorContext, settings: AttemptLimitSettings, callerSignal: AbortSignal) {
    this.#settings = settings;
    this.#context = context;
    this.#callerSignal = callerSignal;
    if (callerSignal.aborted) this.#onCallerAbort();
    else callerSignal.addEventListener('abort', this.#onCallerAbort, { once: true });
    // Every wait of the attempt is on its own signal: closing the limits ends them all.
    const { signal } = this.#controller;
    this.#watchdog = new StallWatchdog(clock, settings.requestTimeoutMs, this.#expire('request_timeout', `no response within ${settings.requestTimeoutMs} ms`), signal);
    const tooLong = this.#expire('response_timeout', `the response took longer than ${settings.maxResponseMs} ms`);
    clock.sleep(settings.maxResponseMs, signal).then(tooLong, () => undefined);
  }

  /** Aborted when a limit runs out (reason: the LLMTransportError) or the caller aborts (reason: the caller's). */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The response headers arrived: from now on the stream must keep bringing data. */
  responseStarted(): void {
    const ms = this.#settings.stallTimeoutMs;
    this.#watchdog.rearm(ms, this.#expire('stream_stalled', `the stream sent no data for ${ms} ms`));
  }

  /** Data arrived: the stall timeout starts again. Comments and keep-alives do not count. */
  dataArrived(): void {
    this.#watchdog.progress();
  }

  /** Stops every timer and aborts {@link signal} (reason: {@link RELEASED}), closing the connection if it is still open. */
  close(): void {
    this.#callerSignal.removeEventListener('abort', this.#onCallerAbort);
    this.#controller.abort(RELEASED);
  }

  #expire(code: string, message: string): () => void {
    return () => {
      const { provider, model } = this.#context;
      this.#controller.abort(new LLMTransportError(`${provider} ${model}: ${message}`, { ...this.#context, code }));
    };
  }
}
