import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HoldfastMetrics } from '../../../src/app/metrics/holdfast_metrics.js';
import { meteredProvider } from '../../../src/app/metrics/metered_provider.js';
import { collectResponse, type LLMProvider } from '../../../src/llm/provider.js';
import type { GenerateRequest } from '../../../src/llm/protocol.js';
import { chatText } from '../../support/fake_llm/openai_chat.js';
import { llmConfig, testProvider } from '../../support/fake_llm/provider.js';
import { FakeLLMServer, sse } from '../../support/fake_llm/server.js';
import { sampleValue } from '../../support/prometheus_text.js';

const REQUEST: GenerateRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };

describe('the model measured for the metrics', () => {
  let fake: FakeLLMServer;
  let metrics: HoldfastMetrics;
  let provider: LLMProvider;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
    metrics = new HoldfastMetrics();
    provider = meteredProvider(testProvider(llmConfig('openai', fake.baseUrl)), metrics.modelAttemptsTotal);
  });
  afterEach(() => fake.close());

  const generate = (signal = new AbortController().signal) => collectResponse(provider.stream(REQUEST, { signal }));
  const attempts = async (result: string) => sampleValue(await metrics.registry.metrics(), 'holdfast_model_attempts_total', { provider: 'openai', model: 'test-model', result });

  it('counts each request once by its result: ok, or the kind of the typed error it failed with', async () => {
    fake.enqueue(
      chatText('Hello.'),
      chatText('Hello again.'),
      { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } },
      { kind: 'reply', status: 401, body: { error: { message: 'bad key' } } },
      { kind: 'hang_up' },
    );
    expect((await generate()).content).toEqual([{ type: 'text', text: 'Hello.' }]);
    await generate();
    for (let i = 0; i < 3; i++) await generate().catch(() => undefined);

    expect(await attempts('ok')).toBe(2);
    expect(await attempts('capacity')).toBe(1);
    expect(await attempts('auth')).toBe(1);
    expect(await attempts('transport')).toBe(1);
    expect(provider).toMatchObject({ provider: 'openai', model: 'test-model' });
  });

  it('counts a request its caller aborted as aborted, not as a model error', async () => {
    fake.enqueue({ kind: 'stream', chunks: [sse({ choices: [{ index: 0, delta: { content: 'Thinking' } }] })], then: 'stall' });
    const stop = new AbortController();
    const pending = generate(stop.signal).catch((error: unknown) => error);
    await fake.whenRequests(1);
    stop.abort();
    await pending;

    expect(await attempts('aborted')).toBe(1);
    expect(await attempts('transport')).toBeUndefined();
  });
});
