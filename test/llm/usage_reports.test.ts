import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLLMError, isLLMErrorOfKind } from '../../src/llm/errors.js';
import type { LLMProviderName } from '../../src/llm/llm_settings.js';
import type { GenerateRequest } from '../../src/llm/protocol.js';
import type { StreamEvent } from '../../src/llm/provider.js';
import { anthropicError } from '../support/fake_llm/anthropic.js';
import { recordedFrames, recordedStream } from '../support/fake_llm/recorded.js';
import { llmConfig, testProvider } from '../support/fake_llm/provider.js';
import { FakeLLMServer, sse, type FakeStep } from '../support/fake_llm/server.js';
import { ManualClock } from '../support/manual_clock.js';

const MILK: GenerateRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'What is milk?' }] }] };

let fake: FakeLLMServer;
let clock: ManualClock;

beforeEach(async () => {
  fake = await FakeLLMServer.start();
  clock = new ManualClock();
});

afterEach(() => fake.close());

/** Everything one attempt against `step` yielded, and the error it ended with, if any. */
async function attempt(provider: LLMProviderName, step: FakeStep): Promise<{ events: StreamEvent[]; error: unknown }> {
  fake.enqueue(step);
  const events: StreamEvent[] = [];
  try {
    for await (const event of testProvider(llmConfig(provider, fake.baseUrl), clock).stream(MILK, { signal: new AbortController().signal })) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

/** The response of an attempt that finished; fails the test with its error otherwise. */
async function finished(provider: LLMProviderName, step: FakeStep) {
  const { events, error } = await attempt(provider, step);
  const last = events.at(-1);
  if (error !== undefined || last?.type !== 'done') throw new Error(`the stream did not finish: ${String(error)}`);
  return last.response;
}

/** The error an attempt failed with; fails the test if it finished. */
async function failed(provider: LLMProviderName, step: FakeStep): Promise<unknown> {
  const { error } = await attempt(provider, step);
  if (error === undefined) throw new Error('expected the attempt to fail');
  return error;
}

describe('the tokens each provider reports for a finished attempt', () => {
  it('Chat Completions: counts the usage chunk that comes after the finish reason, with its cached input and reasoning tokens', async () => {
    const response = await finished('openai', recordedStream('openai_chat_usage_after_finish.sse'));

    expect(response.content).toEqual([{ type: 'text', text: 'Milk is a white liquid made by mammals.' }]);
    expect(response.stopReason).toBe('end_turn');
    expect(response.usage).toStrictEqual({ inputTokens: 1324, outputTokens: 201, cacheReadTokens: 1152, reasoningTokens: 192 });
  });

  it('Chat Completions: a server that reports no usage leaves every count unknown, not zero', async () => {
    const response = await finished('openai', recordedStream('openai_chat_no_usage.sse'));

    expect(response.content).toEqual([{ type: 'text', text: 'Milk is a white liquid made by mammals.' }]);
    expect(response.usage).toStrictEqual({ inputTokens: null, outputTokens: null });
  });

  it('Chat Completions: reported zeros stay zeros, also where Moonshot puts usage inside the choice', async () => {
    const usage = { prompt_tokens: 19, completion_tokens: 13, total_tokens: 32, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } };
    const chunks = [
      sse({ id: 'chatcmpl-test', model: 'kimi-k2', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] }),
      sse({ id: 'chatcmpl-test', model: 'kimi-k2', choices: [{ index: 0, delta: {}, finish_reason: 'stop', usage }] }),
      'data: [DONE]\n\n',
    ];

    const response = await finished('openai', { kind: 'stream', chunks });

    expect(response.usage).toStrictEqual({ inputTokens: 19, outputTokens: 13, cacheReadTokens: 0, reasoningTokens: 0 });
  });

  it('Responses API: reads the usage of response.completed, with its cached input and reasoning tokens', async () => {
    const response = await finished('openai-responses', recordedStream('openai_responses_usage.sse'));

    expect(response.content.filter((block) => block.type === 'text')).toEqual([{ type: 'text', text: 'Milk is a white liquid made by mammals.' }]);
    expect(response.usage).toStrictEqual({ inputTokens: 1320, outputTokens: 212, cacheReadTokens: 1152, reasoningTokens: 192 });
  });

  it('Anthropic: counts the cache reads and writes into the input, takes the output from message_delta, and reports no reasoning count', async () => {
    const response = await finished('anthropic', recordedStream('anthropic_usage.sse'));

    expect(response.content).toEqual([{ type: 'text', text: 'Milk is a white liquid made by mammals.' }]);
    expect(response.usage).toStrictEqual({ inputTokens: 3462, outputTokens: 15, cacheReadTokens: 3000, cacheWriteTokens: 450 });
  });
});

describe('the tokens a failed attempt had reported', () => {
  it('Anthropic overloaded mid-stream: the capacity error carries the input tokens message_start reported', async () => {
    const { events, error } = await attempt('anthropic', recordedStream('anthropic_overloaded_after_usage.sse'));

    expect(events).toEqual([
      { type: 'text_delta', text: 'Milk is' },
      { type: 'text_delta', text: ' a white' },
    ]);
    expect(isLLMErrorOfKind(error, 'capacity')).toBe(true);
    expect(error).toMatchObject({ name: 'LLMCapacityError', provider: 'anthropic', model: 'test-model', code: 'overloaded_error', isRetryable: true });
    expect(isLLMError(error) && error.usage).toStrictEqual({ inputTokens: 4105, outputTokens: null, cacheReadTokens: 4096, cacheWriteTokens: 0 });
  });

  it('a quota error after usage is still the same error: a rate-limit error with quota, not retryable', async () => {
    const frames = recordedFrames('anthropic_overloaded_after_usage.sse');

    const error = await failed('anthropic', { kind: 'stream', chunks: [...frames.slice(0, -1), anthropicError('billing_error', 'Your credit balance is too low.')] });

    expect(isLLMErrorOfKind(error, 'rate_limit')).toBe(true);
    expect(error).toMatchObject({ name: 'LLMRateLimitError', code: 'billing_error', quota: true, isRetryable: false, usage: { inputTokens: 4105, cacheReadTokens: 4096 } });
  });

  it('a refused request or key after usage keeps its kind, class and code, and carries the usage too', async () => {
    const frames = recordedFrames('anthropic_overloaded_after_usage.sse');
    const cases = [
      ['invalid_request_error', 'request', 'LLMRequestError'],
      ['authentication_error', 'auth', 'LLMAuthError'],
    ] as const;
    for (const [type, kind, name] of cases) {
      const error = await failed('anthropic', { kind: 'stream', chunks: [...frames.slice(0, -1), anthropicError(type, 'refused')] });
      expect(isLLMErrorOfKind(error, kind), type).toBe(true);
      expect(error, type).toMatchObject({ name, code: type, isRetryable: false, usage: { inputTokens: 4105 } });
    }
  });

  it('Chat Completions cut off after its usage chunk, before [DONE]: the truncated-stream error carries that usage', async () => {
    const frames = recordedFrames('openai_chat_usage_after_finish.sse');

    const error = await failed('openai', { kind: 'stream', chunks: frames.slice(0, -1) });

    expect(isLLMErrorOfKind(error, 'transport')).toBe(true);
    expect(error).toMatchObject({ code: 'stream_truncated', usage: { inputTokens: 1324, outputTokens: 201, cacheReadTokens: 1152, reasoningTokens: 192 } });
  });

  it('Responses API response.failed: the error carries the usage of the failed response', async () => {
    const frames = recordedFrames('openai_responses_usage.sse');
    const completed = JSON.parse(frames.at(-1)!.split('data: ')[1]!) as { response: Record<string, unknown> };
    const failedEvent = { type: 'response.failed', sequence_number: 15, response: { ...completed.response, status: 'failed', error: { code: 'server_error', message: 'The server had an error.' } } };

    const error = await failed('openai-responses', { kind: 'stream', chunks: [...frames.slice(0, -1), sse(failedEvent, 'response.failed')] });

    expect(isLLMErrorOfKind(error, 'capacity')).toBe(true);
    expect(error).toMatchObject({ code: 'server_error', usage: { inputTokens: 1320, outputTokens: 212, cacheReadTokens: 1152, reasoningTokens: 192 } });
  });

  it('a stream that stalls after message_start: the stall error carries the input tokens reported so far', async () => {
    fake.enqueue({ kind: 'stream', chunks: recordedFrames('anthropic_usage.sse').slice(0, 4), then: 'stall' });
    const stream = testProvider(llmConfig('anthropic', fake.baseUrl, { stream_stall_timeout_seconds: 5 }), clock).stream(MILK, { signal: new AbortController().signal });
    const events = stream[Symbol.asyncIterator]();
    expect((await events.next()).value).toEqual({ type: 'text_delta', text: 'Milk is a white liquid' });

    const outcome = events.next().then(
      () => undefined,
      (error: unknown) => error,
    );
    await clock.advance(5_000);

    const error = await outcome;
    expect(isLLMErrorOfKind(error, 'transport')).toBe(true);
    expect(error).toMatchObject({ code: 'stream_stalled', usage: { inputTokens: 3462, outputTokens: null, cacheReadTokens: 3000, cacheWriteTokens: 450 } });
  });

  it('an attempt that fails before any usage arrived carries none', async () => {
    const frames = recordedFrames('openai_chat_usage_after_finish.sse');

    const error = await failed('openai', { kind: 'stream', chunks: frames.slice(0, 3) });

    expect(error).toMatchObject({ code: 'stream_truncated' });
    expect(isLLMError(error) && error.usage).toBeUndefined();
  });
});
