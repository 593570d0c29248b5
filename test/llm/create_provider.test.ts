import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatConfigProblem, isConfigError } from '../../src/config/problems.js';
import { ManualClock } from '../support/manual_clock.js';
import { createProvider } from '../../src/llm/create_provider.js';
import { collectResponse } from '../../src/llm/provider.js';
import { FakeLLMServer, sse } from '../support/fake_llm/server.js';
import { llmConfig, testProvider } from '../support/fake_llm/provider.js';

describe('createProvider', () => {
  let fake: FakeLLMServer;
  beforeEach(async () => {
    fake = await FakeLLMServer.start();
  });
  afterEach(() => fake.close());

  it('refuses a configuration without a model, naming the key', () => {
    const { model: _model, ...withoutModel } = llmConfig('openai', fake.baseUrl);
    let caught: unknown;
    try {
      createProvider(withoutModel, { clock: new ManualClock(), logger: pino({ level: 'silent' }) });
    } catch (error) {
      caught = error;
    }
    expect(isConfigError(caught) && caught.problems.map(formatConfigProblem)).toEqual(['llm.model: required: the model to talk to, e.g. gpt-4.1-mini']);
  });

  it('sends the configured extra headers, tolerates a trailing slash in base_url, and sends no key when none is set', async () => {
    fake.enqueue({ kind: 'stream', chunks: [sse({ choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }] }), 'data: [DONE]\n\n'] });
    const provider = testProvider(llmConfig('openai', `${fake.baseUrl}/`, { api_key: undefined, headers: { 'HTTP-Referer': 'https://holdfast.example', 'X-Title': 'Holdfast' } }));
    await collectResponse(provider.stream({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }, { signal: new AbortController().signal }));
    const [request] = fake.requests;
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers).toMatchObject({ 'http-referer': 'https://holdfast.example', 'x-title': 'Holdfast' });
    expect(request?.headers['authorization']).toBeUndefined();
  });
});
