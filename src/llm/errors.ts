import { marked } from '../core/marked.js';
import type { Usage } from './protocol.js';

/**
 * Typed model errors (DESIGN §4.1). The recovery policy decides on `kind` and the typed fields,
 * never on message text; messages are for people.
 */
export const LLM_ERROR_KINDS = ['capacity', 'transport', 'rate_limit', 'auth', 'request'] as const;
export type LLMErrorKind = (typeof LLM_ERROR_KINDS)[number];

const LLM_ERROR = marked<LLMError>('LLMError');

/** What every model error says about where it came from. */
export interface LLMErrorDetails {
  readonly provider: string;
  readonly model: string;
  /** The provider's error type or code (`overloaded_error`, `insufficient_quota`, …), or ours (`stream_stalled`). */
  readonly code?: string | undefined;
  /** The HTTP status: of the response, or the one an in-stream error frame names (vLLM, OpenRouter). */
  readonly status?: number | undefined;
  /** How long the provider asked us to wait, from `retry-after-ms` or `retry-after`. */
  readonly retryAfterMs?: number | undefined;
  /** The provider's `x-should-retry` header, when it sent one. */
  readonly shouldRetry?: boolean | undefined;
  /** The tokens the failed attempt had reported before it failed; absent when it reported none. */
  readonly usage?: Usage | undefined;
  readonly cause?: unknown;
}

/** The base of every model error; recognise it with {@link isLLMError}, not `instanceof`. */
export abstract class LLMError extends Error {
  abstract readonly kind: LLMErrorKind;
  /** Whether waiting and trying again can help, as far as this error alone can tell. */
  abstract readonly isRetryable: boolean;
  readonly provider: string;
  readonly model: string;
  readonly code: string | undefined;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly shouldRetry: boolean | undefined;
  readonly usage: Usage | undefined;

  constructor(message: string, details: LLMErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    LLM_ERROR.mark(this);
    this.provider = details.provider;
    this.model = details.model;
    this.code = details.code;
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
    this.shouldRetry = details.shouldRetry;
    this.usage = details.usage;
  }
}

/** The model is overloaded or unavailable: wait and retry within the deadline; never rotate keys. */
export class LLMCapacityError extends LLMError {
  override readonly name = 'LLMCapacityError';
  readonly kind = 'capacity';
  readonly isRetryable = true;
}

/** The connection failed, timed out, stalled, or ended early; or another 5xx: retry within the deadline. */
export class LLMTransportError extends LLMError {
  override readonly name = 'LLMTransportError';
  readonly kind = 'transport';
  readonly isRetryable = true;
}

/** Every key is rate limited (`quota: false`), or the account's quota or spend limit is exhausted (`quota: true`). */
export class LLMRateLimitError extends LLMError {
  override readonly name = 'LLMRateLimitError';
  readonly kind = 'rate_limit';
  readonly isRetryable: boolean;

  constructor(
    message: string,
    details: LLMErrorDetails,
    /** Quota, billing or spend limit: waiting will not help. */
    readonly quota: boolean,
  ) {
    super(message, details);
    this.isRetryable = !quota;
  }
}

/** The key was refused (401/403) or there is no usable key: fail fast. */
export class LLMAuthError extends LLMError {
  override readonly name = 'LLMAuthError';
  readonly kind = 'auth';
  readonly isRetryable = false;
}

/** The request itself is wrong (400/404/413/422, context too long, invalid tool schema): fail fast. */
export class LLMRequestError extends LLMError {
  override readonly name = 'LLMRequestError';
  readonly kind = 'request';
  readonly isRetryable = false;
}

/** How each kind of error is made again with other details; the mapped type asks for every kind. */
const REMADE: { readonly [K in LLMErrorKind]: (error: LLMErrorByKind[K], details: LLMErrorDetails) => LLMErrorByKind[K] } = {
  capacity: (error, details) => new LLMCapacityError(error.message, details),
  transport: (error, details) => new LLMTransportError(error.message, details),
  rate_limit: (error, details) => new LLMRateLimitError(error.message, details, error.quota),
  auth: (error, details) => new LLMAuthError(error.message, details),
  request: (error, details) => new LLMRequestError(error.message, details),
};

/** The same error (class, message and fields), carrying the usage its attempt had reported before it failed. */
export function withUsage(error: LLMError, usage: Usage): LLMError {
  const { provider, model, code, status, retryAfterMs, shouldRetry, cause } = error;
  // An error's kind names its class, which the types cannot tie to the entry read for it.
  const remake = REMADE[error.kind] as (error: LLMError, details: LLMErrorDetails) => LLMError;
  return remake(error, { provider, model, code, status, retryAfterMs, shouldRetry, cause, usage });
}

/** Recognises any {@link LLMError}, even one made by a second copy of this module. */
export function isLLMError(error: unknown): error is LLMError {
  return LLM_ERROR.is(error);
}

/** Recognises an {@link LLMError} of one kind; narrows to its class. */
export function isLLMErrorOfKind<K extends LLMErrorKind>(error: unknown, kind: K): error is LLMErrorByKind[K] {
  return isLLMError(error) && error.kind === kind;
}

export interface LLMErrorByKind {
  capacity: LLMCapacityError;
  transport: LLMTransportError;
  rate_limit: LLMRateLimitError;
  auth: LLMAuthError;
  request: LLMRequestError;
}
