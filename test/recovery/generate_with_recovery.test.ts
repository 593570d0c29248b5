import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual_clock.js';
import type { GenerateRequest } from '../../src/llm/protocol.js';
import type { LLMProvider } from '../../src/llm/provider.js';
import { isCircuitOpenError } from '../../src/recovery/circuit_open_error.js';
import { generateWithRecovery, type RecoveryEvent, type RecoveryOptions, type RecoveryRuntime } from '../../src/recovery/generate_with_recovery.js';
import { isRecoveryGiveUpError, type RecoveryGiveUpError } from '../../src/recovery/give_up_error.js';
import { deferred } from '../support/deferred.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { llmConfig, testProvider } from '../support/fake_llm/provider.js';
import { FakeLLMServer, sse, type FakeStep } from '../support/fake_llm/server.js';
import { runToCompletion, testRecoveryRuntime } from '../support/recovery_runtime.js';

const REQUEST: GenerateRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'What is the weather?' }] }] };
const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error', message: 'Overloaded' } } };
const refusedKey: FakeStep = { kind: 'reply', status: 401, body: { error: { type: 'authentication_error', message: 'bad key' } } };
const repeat = (step: FakeStep, times: number): FakeStep[] => Array.from({ length: times }, () => step);

describe('generateWithRecovery against the fake model server', () => {
  let fake: FakeLLMServer;
  let clock: ManualClock;
  let runtime: RecoveryRuntime;
  let provider: LLMProvider;
  let events: RecoveryEvent[];

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
    clock = new ManualClock();
    runtime = testRecoveryRuntime(clock);
    // The provider's own transport timeouts run on a clock of their own that the test never moves.
    provider = testProvider(llmConfig('openai', fake.baseUrl));
    events = [];
  });
  afterEach(() => fake.close());

  const generate = (options: Partial<RecoveryOptions> = {}) => generateWithRecovery(provider, REQUEST, { runtime, signal: new AbortController().signal, onEvent: (e) => events.push(e), ...options });

  async function gaveUp(work: Promise<unknown>): Promise<RecoveryGiveUpError> {
    const error = await runToCompletion(clock, work).catch((thrown: unknown) => thrown);
    if (!isRecoveryGiveUpError(error)) throw new Error(`expected a give-up, got ${String(error)}`);
    return error;
  }

  it('waits out two overloads and returns the answer of the third attempt', async () => {
    fake.enqueue(overloaded, overloaded, chatText('Sunny.'));
    const response = await runToCompletion(clock, generate());
    expect(response.content).toEqual([{ type: 'text', text: 'Sunny.' }]);
    expect(fake.requests).toHaveLength(3);
    expect(events.filter((e) => e.type === 'waiting')).toEqual([
      { type: 'waiting', delayMs: 50, reason: 'backoff' },
      { type: 'waiting', delayMs: 100, reason: 'backoff' },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'succeeded', attempts: 3, elapsedMs: 150, provenance: { provider: 'openai' } });
    expect(runtime.breakers.get('openai', 'test-model').snapshot().state).toBe('closed');
    expect(runtime.guard.status('llm:openai')).toBe('healthy');
  });

  it('gives up with deadline at the 2-second deadline of an endless overload, its last attempt made at the deadline', async () => {
    fake.enqueue(...repeat(overloaded, 20));
    const error = await gaveUp(generate());
    expect(error).toMatchObject({ reason: 'deadline', attempts: 9, elapsedMs: 2_000, lastError: { kind: 'capacity', status: 529 } });
    expect(clock.monotonicNow()).toBe(2_000);
    expect(fake.requests).toHaveLength(9);
    expect(events.at(-1)).toMatchObject({ type: 'gave_up', reason: 'deadline', attempts: 9 });
  });

  it('counts a failed generation once toward the breaker, however many attempts it made', async () => {
    runtime = testRecoveryRuntime(clock, { ...runtime.settings, breaker: { ...runtime.settings.breaker, generationThreshold: 2 } });
    fake.enqueue(...repeat(overloaded, 20));
    await gaveUp(generate());
    expect(runtime.breakers.get('openai', 'test-model').snapshot()).toMatchObject({ state: 'closed', failedGenerations: 1 });
    await gaveUp(generate());
    expect(runtime.breakers.get('openai', 'test-model').snapshot().state).toBe('open');
  });

  it('never latches the provider unavailable for overloads, however long they last', async () => {
    fake.enqueue(...repeat(overloaded, 20));
    await gaveUp(generate());
    expect(runtime.guard.status('llm:openai')).toBe('degraded');
  });

  it('gives up at once, without waiting, on errors that waiting cannot fix', async () => {
    const quota: FakeStep = { kind: 'reply', status: 429, body: { error: { type: 'insufficient_quota', code: 'insufficient_quota' } }, headers: { 'retry-after': '1' } };
    for (const step of [refusedKey, quota, { kind: 'reply', status: 400, body: { error: { type: 'invalid_request_error' } } } satisfies FakeStep]) {
      fake.enqueue(step);
      const error = await gaveUp(generate());
      expect(error).toMatchObject({ reason: 'non_retryable', attempts: 1, elapsedMs: 0 });
    }
    expect(events.some((e) => e.type === 'waiting')).toBe(false);
  });

  it('waits out a rate limit whose retry-after fits the budget, and fails fast on one that does not', async () => {
    const limited = (seconds: number): FakeStep => ({ kind: 'reply', status: 429, headers: { 'retry-after': String(seconds) }, body: { error: { type: 'rate_limit_error' } } });
    fake.enqueue(limited(1), chatText('Later, sunny.'));
    expect((await runToCompletion(clock, generate())).content).toEqual([{ type: 'text', text: 'Later, sunny.' }]);
    expect(events).toContainEqual({ type: 'waiting', delayMs: 1_000, reason: 'retry_after' });
    fake.enqueue(limited(3));
    expect(await gaveUp(generate())).toMatchObject({ reason: 'non_retryable', attempts: 1, lastError: { kind: 'rate_limit', retryAfterMs: 3_000 } });
    expect(runtime.breakers.get('openai', 'test-model').snapshot()).toMatchObject({ state: 'closed', failedGenerations: 0 });
  });

  it('gives a resumed generation only the budget it has left, and always at least one attempt', async () => {
    runtime = testRecoveryRuntime(clock, { ...runtime.settings, breaker: { ...runtime.settings.breaker, generationThreshold: 10 } });
    fake.enqueue(overloaded, overloaded);
    expect(await gaveUp(generate({ budgetMs: 0 }))).toMatchObject({ reason: 'deadline', attempts: 1, elapsedMs: 0 });
    expect(await gaveUp(generate({ budgetMs: -5_000 }))).toMatchObject({ reason: 'deadline', attempts: 1 });
    fake.enqueue(chatText('Made it.'));
    expect((await runToCompletion(clock, generate({ budgetMs: 0 }))).content).toEqual([{ type: 'text', text: 'Made it.' }]);
  });

  it('lets a healthy stream run past the deadline: the deadline bounds waiting, not streaming', async () => {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    fake.enqueue({
      kind: 'stream',
      chunks: [sse({ choices: [{ index: 0, delta: { content: 'Long ' } }] }), held, sse({ choices: [{ index: 0, delta: { content: 'answer.' }, finish_reason: 'stop' }] }), 'data: [DONE]\n\n'],
    });
    const work = generate({
      budgetMs: 1_000,
      onStreamEvent: (event) => {
        if (event.type !== 'text_delta' || event.text !== 'Long ') return;
        void clock.advance(60_000).then(release);
      },
    });
    expect((await work).content).toEqual([{ type: 'text', text: 'Long answer.' }]);
    expect(clock.monotonicNow()).toBe(60_000);
  });

  it('retries an attempt whose stream carried a frame that is not JSON, and answers with the whole text', async () => {
    const broken = 'data: {"choices":[{"index":0,"delta":{"content":"hel"\n\n';
    fake.enqueue({ kind: 'stream', chunks: [broken, ...chatText('lo').chunks] }, chatText('hello'));
    const response = await runToCompletion(clock, generate());
    expect(response.content).toEqual([{ type: 'text', text: 'hello' }]);
    expect(events.filter((e) => e.type === 'attempt_failed')).toMatchObject([{ attempt: 1, error: { kind: 'transport', code: 'malformed_frame' } }]);
  });

  it('holds a reply at most max_response_seconds past the deadline when the model streams forever', async () => {
    runtime = testRecoveryRuntime(clock, { ...runtime.settings, deadlineMs: 30_000 });
    provider = testProvider(llmConfig('openai', fake.baseUrl, { request_timeout_seconds: 60, stream_stall_timeout_seconds: 60, max_response_seconds: 20 }), clock);
    const forever: FakeStep = { kind: 'stream', chunks: [], then: { repeat: sse({ choices: [{ index: 0, delta: { content: 'la ' } }] }) } };
    fake.enqueue(forever, forever);
    let streaming = deferred();
    const waiting = deferred();
    const work = generate({
      onStreamEvent: () => streaming.resolve(),
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'waiting') waiting.resolve();
      },
    }).catch((thrown: unknown) => thrown);
    await streaming.promise;
    await clock.advance(20_000);
    await waiting.promise;
    streaming = deferred();
    await clock.advance(50);
    await streaming.promise;
    await clock.advance(20_000);
    expect(await work).toMatchObject({ reason: 'deadline', attempts: 2, elapsedMs: 40_050, lastError: { kind: 'transport', code: 'response_timeout' } });
    expect(events.filter((e) => e.type === 'attempt_failed')).toMatchObject([{ error: { code: 'response_timeout' } }, { error: { code: 'response_timeout' } }]);
  });

  it('stops waiting the moment it is cancelled, without time passing, and makes no further request', async () => {
    fake.enqueue(overloaded, chatText('never sent'));
    const controller = new AbortController();
    const work = generate({ signal: controller.signal }).catch((thrown: unknown) => thrown);
    await clock.whenSleeping();
    controller.abort();
    expect(await work).toMatchObject({ reason: 'cancelled', attempts: 1, lastError: { kind: 'capacity' } });
    expect(clock.monotonicNow()).toBe(0);
    expect(fake.requests).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'gave_up', reason: 'cancelled' });
  });

  it('aborts a streaming attempt when cancelled: the server sees the connection closed', async () => {
    fake.enqueue({ kind: 'stream', chunks: [sse({ choices: [{ index: 0, delta: { content: 'Partial' } }] })], then: 'stall' });
    const controller = new AbortController();
    const work = generate({ signal: controller.signal, onStreamEvent: (event) => event.type === 'text_delta' && controller.abort() }).catch((thrown: unknown) => thrown);
    expect(await work).toMatchObject({ reason: 'cancelled', attempts: 1, lastError: undefined });
    await fake.whenClientClosed();
    expect(fake.requests[0]?.closedByClient).toBe(true);
  });

  it('cancelled, it never counts toward the breaker', async () => {
    fake.enqueue(overloaded);
    const controller = new AbortController();
    const work = generate({ signal: controller.signal }).catch((thrown: unknown) => thrown);
    await clock.whenSleeping();
    controller.abort();
    await work;
    expect(runtime.breakers.get('openai', 'test-model').snapshot()).toMatchObject({ state: 'closed', failedGenerations: 0 });
  });

  it('waits through an open breaker and becomes the probe that closes it', async () => {
    fake.enqueue(...repeat(overloaded, 9));
    await gaveUp(generate());
    const opened = runtime.breakers.get('openai', 'test-model').snapshot();
    expect(opened).toMatchObject({ state: 'open', nextProbeAtMs: 2_000 + 5_000 });
    fake.enqueue(chatText('Back again.'));
    const response = await runToCompletion(clock, generate({ budgetMs: 10_000 }));
    expect(response.content).toEqual([{ type: 'text', text: 'Back again.' }]);
    expect(clock.monotonicNow()).toBe(7_000);
    expect(events).toContainEqual({ type: 'waiting', delayMs: 5_000, reason: 'circuit_open' });
    expect(runtime.breakers.get('openai', 'test-model').snapshot().state).toBe('closed');
  });

  it('gives up at once on an open breaker when the caller opts out, sending nothing', async () => {
    runtime.breakers.get('openai', 'test-model').recordGenerationFailure();
    const error = await gaveUp(generate({ retryCircuitOpen: false }));
    expect(error).toMatchObject({ reason: 'non_retryable', attempts: 0 });
    expect(isCircuitOpenError(error.lastError)).toBe(true);
    expect(fake.requests).toHaveLength(0);
  });

  it('re-opens the breaker with a doubled cooldown when the probe finds the model still overloaded', async () => {
    runtime.breakers.get('openai', 'test-model').recordGenerationFailure();
    fake.enqueue(overloaded, chatText('Finally.'));
    const response = await runToCompletion(clock, generate({ budgetMs: 60_000 }));
    expect(response.content).toEqual([{ type: 'text', text: 'Finally.' }]);
    expect(events.filter((e) => e.type === 'waiting').map((e) => e.type === 'waiting' && `${e.reason}:${e.delayMs}`)).toEqual(['circuit_open:5000', 'backoff:50', 'circuit_open:9950']);
    expect(clock.monotonicNow()).toBe(15_000);
    expect(runtime.breakers.get('openai', 'test-model').snapshot()).toMatchObject({ state: 'closed', cooldownMs: 5_000 });
  });

  it('lets an unclassified error escape at once, untouched', async () => {
    const broken = new TypeError('adapter bug');
    const faulty: LLMProvider = {
      provider: 'openai',
      model: 'test-model',
      stream: () => ({
        [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(broken) }),
      }),
    };
    const error = await generateWithRecovery(faulty, REQUEST, { runtime, signal: new AbortController().signal }).catch((thrown: unknown) => thrown);
    expect(error).toBe(broken);
  });
});
