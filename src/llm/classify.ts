import { LLMAuthError, LLMCapacityError, LLMRateLimitError, LLMRequestError, LLMTransportError, type LLMError, type LLMErrorDetails, type LLMErrorKind } from './errors.js';
import { isRecord } from './json_fields.js';
import type { HeaderLookup } from '../core/undici_http.js';
import { assertNever } from '../core/assert_never.js';

/** Which provider and model an error is about. */
export interface ErrorContext {
  readonly provider: string;
  readonly model: string;
}

/** The structured parts of a provider's error object, wherever in the payload it sat. */
export interface ErrorFields {
  readonly type?: string;
  /** A string code (`insufficient_quota`), or an HTTP status sent as a number (vLLM, OpenRouter). */
  readonly code?: string | number;
  readonly message?: string;
}

/** The fields' meaning, decided on `code` first (it is the more specific), then `type`. */
const KIND_BY_NAME: ReadonlyMap<string, LLMErrorKind | 'quota'> = new Map([
  ...(['insufficient_quota', 'billing_error', 'billing_hard_limit_reached', 'billing_not_active', 'quota_exceeded', 'spend_limit_exceeded'] as const).map((n) => [n, 'quota'] as const),
  ...(['overloaded_error', 'server_is_overloaded', 'service_unavailable_error', 'service_unavailable', 'server_error'] as const).map((n) => [n, 'capacity'] as const),
  ...(['rate_limit_error', 'rate_limit_exceeded', 'requests', 'tokens'] as const).map((n) => [n, 'rate_limit'] as const),
  ...(['authentication_error', 'permission_error', 'invalid_api_key', 'unauthorized', 'permission_denied'] as const).map((n) => [n, 'auth'] as const),
  ...(['invalid_request_error', 'not_found_error', 'request_too_large', 'context_length_exceeded', 'model_not_found', 'invalid_prompt'] as const).map((n) => [n, 'request'] as const),
  ...(['api_error', 'timeout_error', 'internal_error'] as const).map((n) => [n, 'transport'] as const),
] as const);

/** The headers of an error that came inside a stream: it has none of its own. */
const NO_HEADERS: HeaderLookup = { get: () => null };

/** Names that mean "overloaded" even on an HTTP 5xx that would otherwise be a transport failure. */
const OVERLOAD_NAMES: ReadonlySet<string> = new Set(['overloaded_error', 'server_is_overloaded', 'service_unavailable_error', 'service_unavailable']);

/**
 * Finds the error object in a provider payload: `{error: {...}}` (OpenAI, Anthropic, nested
 * Responses, OpenRouter), `{error: "text"}` (Ollama), `{type: "error", code, message}` (flat
 * Responses), `{object: "error", code: 503, ...}` (vLLM), or `{response: {error: {...}}}`
 * (Responses `response.failed`). `undefined` when there is none.
 */
export function errorFieldsOf(payload: unknown): ErrorFields | undefined {
  if (!isRecord(payload)) return undefined;
  const { error } = payload;
  if (typeof error === 'string') return { message: error };
  if (isRecord(error)) return fieldsFrom(error);
  if (payload['type'] === 'error' || payload['object'] === 'error') return fieldsFrom(payload);
  const response = payload['response'];
  if (isRecord(response) && isRecord(response['error'])) return fieldsFrom(response['error']);
  return undefined;
}

/** The error for a non-2xx HTTP response: the status decides, the body's fields refine. */
export function errorFromStatus(context: ErrorContext, status: number, fields: ErrorFields | undefined, headers: HeaderLookup, nowMs: number): LLMError {
  const named = fields === undefined ? undefined : kindOfFields(fields);
  const details = detailsOf(context, fields, {
    status,
    retryAfterMs: parseRetryAfter(headers, nowMs),
    shouldRetry: parseShouldRetry(headers),
  });
  const message = describe(context, fields, `HTTP ${status}`);
  if (status === 401 || status === 403) return new LLMAuthError(message, details);
  if (status === 429 || status === 402) return new LLMRateLimitError(message, details, status === 402 || named === 'quota');
  if (status === 408) return new LLMTransportError(message, details);
  if (status === 503 || status === 529) return new LLMCapacityError(message, details);
  if (status >= 500) {
    const overload = [fields?.code, fields?.type].some((name) => typeof name === 'string' && OVERLOAD_NAMES.has(name));
    return overload ? new LLMCapacityError(message, details) : new LLMTransportError(message, details);
  }
  if (named === 'quota') return new LLMRateLimitError(message, details, true);
  return new LLMRequestError(message, details);
}

/**
 * The error for an error object that arrived inside a 200 stream. A numeric `code` is an HTTP
 * status; otherwise the code and type decide, and an error nobody named is a transport failure:
 * the server broke off the response it had started.
 */
export function errorFromStreamPayload(context: ErrorContext, fields: ErrorFields): LLMError {
  const { code, ...named } = fields;
  if (typeof code === 'number' && code >= 400) return errorFromStatus(context, code, named, NO_HEADERS, 0);
  const details = detailsOf(context, fields, {});
  const message = describe(context, fields, 'error in stream');
  const kind = kindOfFields(fields) ?? 'transport';
  switch (kind) {
    case 'quota':
      return new LLMRateLimitError(message, details, true);
    case 'rate_limit':
      return new LLMRateLimitError(message, details, false);
    case 'capacity':
      return new LLMCapacityError(message, details);
    case 'auth':
      return new LLMAuthError(message, details);
    case 'request':
      return new LLMRequestError(message, details);
    case 'transport':
      return new LLMTransportError(message, details);
    default:
      return assertNever(kind);
  }
}

/** Throws the typed error a streamed payload carries, if it carries one (see {@link errorFieldsOf}). */
export function throwIfStreamError(payload: unknown, context: ErrorContext): void {
  const fields = errorFieldsOf(payload);
  if (fields !== undefined) throw errorFromStreamPayload(context, fields);
}

/**
 * How long the provider asked us to wait: `retry-after-ms`, else `retry-after` in seconds or as
 * an HTTP date (measured from `nowMs`, wall time). Never negative.
 */
export function parseRetryAfter(headers: HeaderLookup, nowMs: number): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number.parseFloat(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

function parseShouldRetry(headers: HeaderLookup): boolean | undefined {
  const value = headers.get('x-should-retry')?.trim().toLowerCase();
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

function kindOfFields(fields: ErrorFields): LLMErrorKind | 'quota' | undefined {
  for (const name of [fields.code, fields.type]) {
    const kind = typeof name === 'string' ? KIND_BY_NAME.get(name) : undefined;
    if (kind !== undefined) return kind;
  }
  return undefined;
}

function detailsOf(context: ErrorContext, fields: ErrorFields | undefined, extra: Partial<LLMErrorDetails>): LLMErrorDetails {
  const code = typeof fields?.code === 'string' ? fields.code : fields?.type;
  return { ...context, code, ...extra };
}

function describe(context: ErrorContext, fields: ErrorFields | undefined, what: string): string {
  const name = [fields?.type, fields?.code].filter((part) => part !== undefined).join('/');
  const head = `${context.provider} ${context.model}: ${what}${name === '' ? '' : ` (${name})`}`;
  return fields?.message === undefined || fields.message === '' ? head : `${head}: ${fields.message}`;
}

function fieldsFrom(record: Readonly<Record<string, unknown>>): ErrorFields {
  const { type, code, message } = record;
  return {
    ...(typeof type === 'string' && type !== 'error' ? { type } : {}),
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(typeof message === 'string' ? { message } : {}),
  };
}
