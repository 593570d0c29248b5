import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual_clock.js';
import { isLLMError } from '../../src/llm/errors.js';
import type { GenerateRequest } from '../../src/llm/protocol.js';
import { collectResponse, type StreamEvent } from '../../src/llm/provider.js';
import { deferred } from '../support/deferred.js';
import { FakeLLMServer, sse, type FakeStep } from '../support/fake_llm/server.js';
import { llmConfig, testProvider } from '../support/fake_llm/provider.js';

const REQUEST: GenerateRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };
const delta = (text: string): string => sse({ id: 'c1', model: 'test-model', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });
const FINISH = [sse({ id: 'c1', model: 'test-model', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }), 'data: [DONE]\n\n'];
const reply = (text: string): FakeStep => ({ kind: 'stream', chunks: [delta(text), ...FINISH] });
const limited: FakeStep = { kind: 'reply', status: 429, body: { error: { type: 'rate_limit_error', message: 'slow down' } } };

describe('the HTTP transport under every provider', () => {
  let fake: FakeLLMServer;
  let clock: ManualClock;
  beforeEach(async () => {
    fake = await FakeLLMServer.start();
    clock = new ManualClock();
  });
  afterEach(() => fake.close());

  const provider = (overrides = {}) => testProvider(llmConfig('openai', fake.baseUrl, { request_timeout_seconds: 10, stream_stall_timeout_seconds: 5, ...overrides }), clock);
  const settle = (promise: Promise<unknown>): Promise<unknown> =>
    promise.then(
      (value) => ({ value }),
      (error: unknown) => error,
    );

  it('gives up on a server that never answers after request_timeout_seconds, and closes the connection', async () => {
    fake.enqueue({ kind: 'no_response' });
    const result = settle(collectResponse(provider().stream(REQUEST, { signal: new AbortController().signal })));
    await fake.whenRequests(1);
    await clock.advance(9_999);
    await clock.advance(1);
    expect(await result).toMatchObject({ kind: 'transport', code: 'request_timeout' });
    await fake.whenClientClosed();
  });

  it('gives up on a stream that goes silent for stream_stall_timeout_seconds, and closes the connection', async () => {
    fake.enqueue({ kind: 'stream', chunks: [delta('Hel')], then: 'stall' });
    const events = provider().stream(REQUEST, { signal: new AbortController().signal })[Symbol.asyncIterator]();
    expect((await events.next()).value).toEqual({ type: 'text_delta', text: 'Hel' });
    let outcome: unknown;
    void settle(events.next()).then((settled) => (outcome = settled));
    // Second by second, short of the 10 s request timeout: a watchdog that missed its re-arm would only fire then.
    for (let second = 0; second < 8 && outcome === undefined; second++) await clock.advance(1_000);
    expect(outcome, 'the stream was not given up within 8 s of silence, though stream_stall_timeout_seconds is 5').toMatchObject({ kind: 'transport', code: 'stream_stalled', provider: 'openai' });
    expect(clock.monotonicNow()).toBeLessThanOrEqual(6_000);
    await fake.whenClientClosed();
  });

  it('measures silence, not length: a slow stream that keeps sending is not stalled', async () => {
    const gates = [deferred(), deferred()];
    fake.enqueue({ kind: 'stream', chunks: [delta('a'), gates[0]!.promise, delta('b'), gates[1]!.promise, delta('c'), ...FINISH] });
    const seen: StreamEvent[] = [];
    for await (const event of provider().stream(REQUEST, { signal: new AbortController().signal })) {
      seen.push(event);
      if (event.type !== 'text_delta') continue;
      await clock.advance(4_000);
      gates.shift()?.resolve();
    }
    expect(seen.filter((e) => e.type === 'text_delta').map((e) => e.type === 'text_delta' && e.text)).toEqual(['a', 'b', 'c']);
    expect(clock.monotonicNow()).toBe(12_000);
  });

  it('counts a stream of SSE comments as silence: keep-alives alone stall after stream_stall_timeout_seconds', async () => {
    fake.enqueue({ kind: 'stream', chunks: [': keepalive\n\n'], then: { repeat: ': OPENROUTER PROCESSING\n\n' } });
    let outcome: unknown;
    void settle(collectResponse(provider({ request_timeout_seconds: 600 }).stream(REQUEST, { signal: new AbortController().signal }))).then((settled) => (outcome = settled));
    for (let second = 0; second < 60 && outcome === undefined; second++) await clock.advance(1_000);
    expect(outcome).toMatchObject({ kind: 'transport', code: 'stream_stalled', isRetryable: true });
    await fake.whenClientClosed();
  });

  it('cuts a response that never ends at max_response_seconds as a transport timeout, however steadily it streams', async () => {
    fake.enqueue({ kind: 'stream', chunks: [], then: { repeat: delta('la ') } });
    const streaming = deferred();
    const onEvent = (event: StreamEvent): void => {
      if (event.type === 'text_delta') streaming.resolve();
    };
    const bot = provider({ stream_stall_timeout_seconds: 60, max_response_seconds: 20 });
    const result = settle(collectResponse(bot.stream(REQUEST, { signal: new AbortController().signal }), onEvent));
    await streaming.promise;
    await clock.advance(19_999);
    await clock.advance(1);
    expect(await result).toMatchObject({ kind: 'transport', code: 'response_timeout', isRetryable: true, provider: 'openai' });
    await fake.whenClientClosed();
  });

  it('makes a connection dropped mid-stream a transport error', async () => {
    fake.enqueue({ kind: 'stream', chunks: [delta('partial')], then: 'hang_up' });
    expect(await settle(collectResponse(provider().stream(REQUEST, { signal: new AbortController().signal })))).toMatchObject({ kind: 'transport', code: 'connection_failed' });
  });

  it('makes a connection dropped before any response a transport error', async () => {
    fake.enqueue({ kind: 'hang_up' });
    expect(await settle(collectResponse(provider().stream(REQUEST, { signal: new AbortController().signal })))).toMatchObject({ kind: 'transport', code: 'connection_failed' });
  });

  it('quotes at most 200 characters of an error answer that is not JSON', async () => {
    fake.enqueue({ kind: 'reply', status: 503, body: `${'x'.repeat(250)}` });
    const error = await settle(collectResponse(provider().stream(REQUEST, { signal: new AbortController().signal })));
    expect(isLLMError(error) && error.message).toContain(`${'x'.repeat(200)}…`);
    expect(isLLMError(error) && error.message).not.toContain('x'.repeat(201));
  });

  it('makes an empty 200 body a transport error', async () => {
    fake.enqueue({ kind: 'stream', chunks: [] });
    expect(await settle(collectResponse(provider().stream(REQUEST, { signal: new AbortController().signal })))).toMatchObject({ kind: 'transport', code: 'empty_body' });
  });

  it('aborts a request still waiting for its response at once, as an abort and not an LLMError', async () => {
    fake.enqueue({ kind: 'no_response' });
    const controller = new AbortController();
    const result = settle(collectResponse(provider().stream(REQUEST, { signal: controller.signal })));
    await fake.whenRequests(1);
    controller.abort();
    const error = await result;
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(isLLMError(error)).toBe(false);
    await fake.whenClientClosed();
  });

  it('keeps the connection alive: successive calls, an error answer among them, go over one TCP connection', async () => {
    const bot = provider();
    fake.enqueue(reply('first'), limited, reply('third'));
    const outcomes: unknown[] = [];
    for (let call = 0; call < 3; call++) {
      // Undici hands a connection back to its pool on the event loop's next turn, as a turn's durable writes give it between calls.
      await nextMacrotask();
      outcomes.push(await settle(collectResponse(bot.stream(REQUEST, { signal: new AbortController().signal }))));
    }
    expect(outcomes).toMatchObject([{ value: { content: [{ type: 'text', text: 'first' }] } }, { kind: 'rate_limit' }, { value: { content: [{ type: 'text', text: 'third' }] } }]);
    expect(fake.connections).toBe(1);
  });

  it('refuses to start when the signal has already aborted, sending nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await settle(collectResponse(provider().stream(REQUEST, { signal: controller.signal })))).toMatchObject({ name: 'AbortError' });
    expect(fake.requests).toHaveLength(0);
  });

  describe('several API keys', () => {
    const keys = { api_key: undefined, api_keys: ['key-a', 'key-b', 'key-c'] };
    const usedKeys = (): unknown[] => fake.requests.map((r) => r.headers['authorization']);

    it('hands a rate-limited request to the next key, and keeps using the key that worked', async () => {
      const bot = provider(keys);
      fake.enqueue(limited, limited, reply('first'), reply('second'));
      expect((await collectResponse(bot.stream(REQUEST, { signal: new AbortController().signal }))).content).toEqual([{ type: 'text', text: 'first' }]);
      expect((await collectResponse(bot.stream(REQUEST, { signal: new AbortController().signal }))).content).toEqual([{ type: 'text', text: 'second' }]);
      expect(usedKeys()).toEqual(['Bearer key-a', 'Bearer key-b', 'Bearer key-c', 'Bearer key-c']);
    });

    it('lets the rate limit escape only when every key is limited', async () => {
      fake.enqueue(limited, limited, limited);
      expect(await settle(collectResponse(provider(keys).stream(REQUEST, { signal: new AbortController().signal })))).toMatchObject({ kind: 'rate_limit', status: 429 });
      expect(usedKeys()).toEqual(['Bearer key-a', 'Bearer key-b', 'Bearer key-c']);
    });

    it('never rotates keys on a capacity error: another key does not make the model less busy', async () => {
      fake.enqueue({ kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } });
      expect(await settle(collectResponse(provider(keys).stream(REQUEST, { signal: new AbortController().signal })))).toMatchObject({ kind: 'capacity' });
      expect(usedKeys()).toEqual(['Bearer key-a']);
    });
  });
});
