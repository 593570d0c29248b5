import { describe, expect, it } from 'vitest';
import { errorFieldsOf, errorFromStatus, errorFromStreamPayload, parseRetryAfter } from '../../src/llm/classify.js';
import { isLLMError, isLLMErrorOfKind, LLMCapacityError } from '../../src/llm/errors.js';
import { headerLookup } from '../../src/core/undici_http.js';

const context = { provider: 'openai', model: 'm' };
const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);

describe('headerLookup', () => {
  it('reads the headers undici parsed as Headers reads them: any case of name, a repeated header joined, an absent one null', () => {
    const headers = headerLookup({ 'retry-after': '7', 'x-trace': ['a', 'b'] });
    expect(headers.get('Retry-After')).toBe('7');
    expect(headers.get('x-trace')).toBe('a, b');
    expect(headers.get('location')).toBeNull();
    expect(parseRetryAfter(headers, NOW)).toBe(7000);
  });
});

describe('parseRetryAfter', () => {
  it('prefers retry-after-ms, then reads retry-after as seconds or as an HTTP date', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '1500.4', 'retry-after': '9' }), NOW)).toBe(1500);
    expect(parseRetryAfter(new Headers({ 'retry-after': '7' }), NOW)).toBe(7000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '0.25' }), NOW)).toBe(250);
    expect(parseRetryAfter(new Headers({ 'retry-after': new Date(NOW + 30_000).toUTCString() }), NOW)).toBe(30_000);
  });

  it('never gives a negative wait, and gives none for junk or no header', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': new Date(NOW - 60_000).toUTCString() }), NOW)).toBe(0);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), NOW)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '-5' }), NOW)).toBeUndefined();
    expect(parseRetryAfter(new Headers(), NOW)).toBeUndefined();
  });
});

describe('errorFieldsOf', () => {
  it('finds the error object in every shape providers send', () => {
    expect(errorFieldsOf({ error: { type: 'overloaded_error', message: 'Overloaded' } })).toEqual({ type: 'overloaded_error', message: 'Overloaded' });
    expect(errorFieldsOf({ error: 'model is loading' })).toEqual({ message: 'model is loading' });
    expect(errorFieldsOf({ type: 'error', code: 'server_is_overloaded', message: 'busy' })).toEqual({ code: 'server_is_overloaded', message: 'busy' });
    expect(errorFieldsOf({ object: 'error', code: 503, type: 'ServiceUnavailable', message: 'x' })).toEqual({ type: 'ServiceUnavailable', code: 503, message: 'x' });
    expect(errorFieldsOf({ type: 'response.failed', response: { error: { code: 'server_error', message: 'y' } } })).toEqual({ code: 'server_error', message: 'y' });
    expect(errorFieldsOf({ choices: [{ delta: { content: 'hi' } }] })).toBeUndefined();
    expect(errorFieldsOf('[DONE]')).toBeUndefined();
  });
});

describe('classification', () => {
  it('decides on the code before the type, and never on the message text', () => {
    const quota = errorFromStreamPayload(context, { type: 'invalid_request_error', code: 'insufficient_quota', message: 'overloaded with requests' });
    expect(isLLMErrorOfKind(quota, 'rate_limit') && quota.quota).toBe(true);
    const unnamed = errorFromStreamPayload(context, { message: 'the server is overloaded, please retry' });
    expect(unnamed.kind).toBe('transport');
  });

  it('lets an overload named in the body turn a 5xx into a capacity error, but not a plain server_error', () => {
    expect(errorFromStatus(context, 500, { type: 'overloaded_error' }, new Headers(), NOW).kind).toBe('capacity');
    expect(errorFromStatus(context, 500, { type: 'server_error' }, new Headers(), NOW).kind).toBe('transport');
    expect(errorFromStreamPayload(context, { type: 'server_error' }).kind).toBe('capacity');
  });

  it('records x-should-retry and reads a readable message with provider, model and what was named', () => {
    const error = errorFromStatus(context, 503, { type: 'service_unavailable_error', message: 'try later' }, new Headers({ 'x-should-retry': 'false' }), NOW);
    expect(error).toBeInstanceOf(LLMCapacityError);
    expect(error).toMatchObject({ kind: 'capacity', status: 503, shouldRetry: false, code: 'service_unavailable_error', isRetryable: true });
    expect(error.message).toBe('openai m: HTTP 503 (service_unavailable_error): try later');
  });

  it('recognises an error from another copy of the module by its marker, not by instanceof', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('holdfast.LLMError')]: true, kind: 'capacity' });
    expect(isLLMError(foreign)).toBe(true);
    expect(isLLMErrorOfKind(foreign, 'capacity')).toBe(true);
    expect(isLLMError(new Error('plain'))).toBe(false);
    expect(isLLMError(new DOMException('aborted', 'AbortError'))).toBe(false);
  });
});
