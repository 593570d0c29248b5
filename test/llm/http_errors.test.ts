import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LLMProviderName } from '../../src/llm/llm_settings.js';
import { ManualClock } from '../support/manual_clock.js';
import { isLLMError, isLLMErrorOfKind, type LLMError } from '../../src/llm/errors.js';
import { collectResponse } from '../../src/llm/provider.js';
import { closedPortUrl, FakeLLMServer, type FakeStep } from '../support/fake_llm/server.js';
import { llmConfig, testProvider } from '../support/fake_llm/provider.js';

const PROVIDERS: readonly LLMProviderName[] = ['openai', 'openai-responses', 'anthropic'];
const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);

describe.each(PROVIDERS)('%s: errors at the HTTP status level', (provider) => {
  let fake: FakeLLMServer;
  beforeAll(async () => {
    fake = await FakeLLMServer.start();
  });
  afterAll(() => fake.close());

  async function failureFor(step: FakeStep): Promise<LLMError> {
    fake.enqueue(step);
    const clock = new ManualClock({ wallStart: NOW });
    const error = await collectResponse(
      testProvider(llmConfig(provider, fake.baseUrl), clock).stream({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }, { signal: new AbortController().signal }),
    ).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    if (!isLLMError(error)) throw new Error(`expected an LLMError, got ${String(error)}`);
    return error;
  }

  it.each([
    [400, 'request'],
    [404, 'request'],
    [413, 'request'],
    [422, 'request'],
    [401, 'auth'],
    [403, 'auth'],
    [408, 'transport'],
    [500, 'transport'],
    [502, 'transport'],
    [504, 'transport'],
    [503, 'capacity'],
    [529, 'capacity'],
  ] as const)('HTTP %i is a %s error carrying provider, model and status', async (status, kind) => {
    const error = await failureFor({ kind: 'reply', status, body: { error: { message: `status ${status}` } } });
    expect(error).toMatchObject({ kind, status, provider, model: 'test-model' });
    expect(error.message).toContain(`status ${status}`);
  });

  it('reads retry-after-ms, retry-after in seconds and retry-after as an HTTP date on a 429', async () => {
    const limited = (headers: Record<string, string>): FakeStep => ({ kind: 'reply', status: 429, headers, body: { error: { type: 'rate_limit_error', message: 'slow down' } } });
    expect(await failureFor(limited({ 'retry-after-ms': '2500' }))).toMatchObject({ kind: 'rate_limit', quota: false, retryAfterMs: 2500, isRetryable: true });
    expect(await failureFor(limited({ 'retry-after': '3' }))).toMatchObject({ kind: 'rate_limit', retryAfterMs: 3000 });
    expect(await failureFor(limited({ 'retry-after': new Date(NOW + 42_000).toUTCString() }))).toMatchObject({ kind: 'rate_limit', retryAfterMs: 42_000 });
  });

  it.each([
    ['insufficient_quota', { error: { type: 'insufficient_quota', code: 'insufficient_quota', message: 'You exceeded your current quota' } }],
    ['billing_error', { type: 'error', error: { type: 'billing_error', message: 'credit balance too low' } }],
    ['spend limit', { error: { type: 'invalid_request_error', code: 'spend_limit_exceeded', message: 'monthly spend limit reached' } }],
  ])('a 429 for %s is a rate limit marked as quota, never worth waiting for', async (_name, body) => {
    const error = await failureFor({ kind: 'reply', status: 429, body, headers: { 'retry-after': '1' } });
    expect(isLLMErrorOfKind(error, 'rate_limit') && error.quota).toBe(true);
    expect(error.isRetryable).toBe(false);
  });

  it('records the x-should-retry header', async () => {
    expect(await failureFor({ kind: 'reply', status: 500, headers: { 'x-should-retry': 'true' } })).toMatchObject({ kind: 'transport', shouldRetry: true });
  });

  it('reads a non-JSON error body as the message', async () => {
    const error = await failureFor({ kind: 'reply', status: 502, body: '<html>Bad Gateway</html>' });
    expect(error).toMatchObject({ kind: 'transport', status: 502 });
    expect(error.message).toContain('<html>Bad Gateway</html>');
  });

  it('makes a refused connection a transport error', async () => {
    const error = await collectResponse(testProvider(llmConfig(provider, await closedPortUrl())).stream({ messages: [] }, { signal: new AbortController().signal })).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ kind: 'transport', code: 'connection_failed', provider });
  });
});
