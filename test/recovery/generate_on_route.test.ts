import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual_clock.js';
import type { GenerateRequest } from '../../src/llm/protocol.js';
import type { LLMProvider } from '../../src/llm/provider.js';
import { generateOnRoute, type RecoveryEvent, type RecoveryOptions, type RecoveryRuntime } from '../../src/recovery/generate_with_recovery.js';
import { isRecoveryGiveUpError, type RecoveryGiveUpError } from '../../src/recovery/give_up_error.js';
import { claimOnRoute, type ModelRoute } from '../../src/recovery/model_route.js';
import { anthropicErrorReply, anthropicText } from '../support/fake_llm/anthropic.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { llmConfig, testProvider } from '../support/fake_llm/provider.js';
import { FakeLLMServer, type FakeStep } from '../support/fake_llm/server.js';
import { runToCompletion, testRecoveryRuntime } from '../support/recovery_runtime.js';

const QUESTION: GenerateRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'What is the weather?' }] }] };
const overloaded = anthropicErrorReply(529, 'overloaded_error', 'Overloaded');
const chatOverloaded: FakeStep = { kind: 'reply', status: 503, body: { error: { type: 'service_unavailable_error', message: 'busy' } } };
const repeat = (step: FakeStep, times: number): FakeStep[] => Array.from({ length: times }, () => step);

/** A turn that called a tool on the primary and has its result: the next step may go to either model. */
const AFTER_TOOL: GenerateRequest = {
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Charge order 7.' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'functions.charge:0', name: 'charge', input: { order: 7 } }] },
    { role: 'tool', content: [{ type: 'tool_result', toolUseId: 'functions.charge:0', content: 'charged 7', isError: false }] },
  ],
};

describe('generateOnRoute: an Anthropic primary and an OpenAI-compatible fallback', () => {
  let primaryServer: FakeLLMServer;
  let fallbackServer: FakeLLMServer;
  let clock: ManualClock;
  let runtime: RecoveryRuntime;
  let primary: LLMProvider;
  let fallback: LLMProvider;
  let route: ModelRoute;
  let events: RecoveryEvent[];

  beforeEach(async () => {
    primaryServer = await FakeLLMServer.start();
    fallbackServer = await FakeLLMServer.start();
    clock = new ManualClock();
    runtime = testRecoveryRuntime(clock);
    primary = testProvider(llmConfig('anthropic', primaryServer.baseUrl, { model: 'claude-main' }));
    fallback = testProvider(llmConfig('openai', fallbackServer.baseUrl, { model: 'local-llama' }));
    route = [primary, fallback];
    events = [];
  });
  afterEach(async () => {
    await primaryServer.close();
    await fallbackServer.close();
  });

  const generate = (request: GenerateRequest = QUESTION, options: Partial<RecoveryOptions> = {}) =>
    generateOnRoute(route, request, { runtime, signal: new AbortController().signal, onEvent: (e) => events.push(e), ...options });
  const breakerOf = (model: LLMProvider) => runtime.breakers.get(model.provider, model.model);

  async function gaveUp(work: Promise<unknown>): Promise<RecoveryGiveUpError> {
    const error = await runToCompletion(clock, work).catch((thrown: unknown) => thrown);
    if (!isRecoveryGiveUpError(error)) throw new Error(`expected a give-up, got ${String(error)}`);
    return error;
  }

  it('answers from the fallback at once when the primary is overloaded, without waiting a backoff step', async () => {
    primaryServer.enqueue(...repeat(overloaded, 5));
    fallbackServer.enqueue(chatText('Sunny, says the fallback.'), chatText('Still sunny.'));
    const first = await runToCompletion(clock, generate());
    expect(first.response.content).toEqual([{ type: 'text', text: 'Sunny, says the fallback.' }]);
    expect(first.model).toBe(fallback);
    expect(clock.monotonicNow()).toBe(0);
    expect(events.some((e) => e.type === 'waiting')).toBe(false);
    expect(events.find((e) => e.type === 'switched')).toMatchObject({ from: primary, to: fallback, error: { kind: 'capacity', status: 529 } });
    // The primary's failed generation opened its breaker: the next generation starts on the fallback.
    expect(breakerOf(primary).snapshot().state).toBe('open');
    const second = await runToCompletion(clock, generate());
    expect(second.model).toBe(fallback);
    expect(primaryServer.requests).toHaveLength(1);
  });

  it('sends the fallback the whole transcript in its own wire format, tool call and result included', async () => {
    primaryServer.enqueue(overloaded);
    fallbackServer.enqueue(chatText('Order 7 is charged.'));
    await runToCompletion(clock, generate(AFTER_TOOL));
    expect(fallbackServer.requests[0]?.body).toMatchObject({
      model: 'local-llama',
      messages: [
        { role: 'user', content: 'Charge order 7.' },
        { role: 'assistant', tool_calls: [{ id: 'functions.charge:0', type: 'function', function: { name: 'charge', arguments: '{"order":7}' } }] },
        { role: 'tool', tool_call_id: 'functions.charge:0', content: 'charged 7' },
      ],
    });
  });

  it('rewrites a call id Anthropic refuses the same way in the call and in its result', async () => {
    route = [primary];
    primaryServer.enqueue(anthropicText('Done.'));
    await runToCompletion(clock, generate(AFTER_TOOL));
    const body = primaryServer.requests[0]?.body as { messages: { content: { type: string; id?: string; tool_use_id?: string }[] }[] };
    const call = body.messages[1]?.content[0];
    const result = body.messages[2]?.content[0];
    expect(call?.id).toMatch(/^functions_charge_0_[0-9a-f]{12}$/);
    expect(result?.tool_use_id).toBe(call?.id);
  });

  it('does not fall over on an auth error: it gives up, and the fallback is never asked', async () => {
    primaryServer.enqueue(anthropicErrorReply(401, 'authentication_error', 'invalid x-api-key'));
    const error = await gaveUp(generate());
    expect(error).toMatchObject({ reason: 'non_retryable', attempts: 1, lastError: { kind: 'auth' } });
    expect(fallbackServer.requests).toHaveLength(0);
  });

  it('retries a transport failure on the same model after a backoff step, as with one model', async () => {
    primaryServer.enqueue({ kind: 'hang_up' }, anthropicText('Back.'));
    const answer = await runToCompletion(clock, generate());
    expect(answer.model).toBe(primary);
    expect(events).toContainEqual({ type: 'waiting', delayMs: 50, reason: 'backoff' });
    expect(fallbackServer.requests).toHaveLength(0);
  });

  it('waits with backoff only when every model is overloaded, and gives up at the deadline counting each breaker once', async () => {
    runtime = testRecoveryRuntime(clock, { ...runtime.settings, breaker: { ...runtime.settings.breaker, generationThreshold: 2 } });
    primaryServer.enqueue(...repeat(overloaded, 20));
    fallbackServer.enqueue(...repeat(chatOverloaded, 20));
    const error = await gaveUp(generate());
    expect(error).toMatchObject({ reason: 'deadline', elapsedMs: 2_000, lastError: { kind: 'capacity' } });
    const waits = events.filter((e) => e.type === 'waiting');
    expect(waits[0]).toEqual({ type: 'waiting', delayMs: 50, reason: 'backoff' });
    // Each round asks the primary, then the fallback, then waits.
    expect(primaryServer.requests.length).toBe(waits.length + 1);
    expect(fallbackServer.requests.length).toBe(waits.length + 1);
    expect(breakerOf(primary).snapshot()).toMatchObject({ state: 'closed', failedGenerations: 1 });
    expect(breakerOf(fallback).snapshot()).toMatchObject({ state: 'closed', failedGenerations: 1 });
  });

  it('with both breakers open, goes on with whichever model admits a call first', async () => {
    breakerOf(primary).recordGenerationFailure();
    breakerOf(primary).recordProbeFailure(probeOf(breakerOf(primary).claimProbe()));
    breakerOf(fallback).recordGenerationFailure();
    // The primary reopened with a doubled cooldown (10 s); the fallback half-opens after 5 s.
    fallbackServer.enqueue(chatText('The fallback is back first.'));
    const answer = await runToCompletion(clock, generate(QUESTION, { budgetMs: 30_000 }));
    expect(answer.model).toBe(fallback);
    expect(clock.monotonicNow()).toBe(5_000);
    expect(events).toContainEqual({ type: 'waiting', delayMs: 5_000, reason: 'circuit_open' });
    expect(primaryServer.requests).toHaveLength(0);
    expect(breakerOf(fallback).snapshot().state).toBe('closed');
  });

  it('passes over a half-open model whose probe another caller holds', async () => {
    breakerOf(primary).recordGenerationFailure();
    await clock.advance(5_000);
    expect(breakerOf(primary).admit().kind).toBe('probe');
    fallbackServer.enqueue(chatText('From the fallback.'));
    const answer = await runToCompletion(clock, generate());
    expect(answer.model).toBe(fallback);
    expect(primaryServer.requests).toHaveLength(0);
  });

  it('goes to the half-open primary as its probe when the slot is free, and closes it', async () => {
    breakerOf(primary).recordGenerationFailure();
    await clock.advance(5_000);
    primaryServer.enqueue(anthropicText('The primary recovered.'));
    const answer = await runToCompletion(clock, generate());
    expect(answer.model).toBe(primary);
    expect(breakerOf(primary).snapshot().state).toBe('closed');
    expect(fallbackServer.requests).toHaveLength(0);
  });

  it('forced by a person, takes every open breaker’s probe slot and tries each model at once, before any cooldown ends', async () => {
    breakerOf(primary).recordGenerationFailure();
    breakerOf(fallback).recordGenerationFailure();
    expect(claimOnRoute(route, runtime.breakers, false)).toEqual({ kind: 'rejected', retryAtMs: 5_000 });
    const claim = claimOnRoute(route, runtime.breakers, true);
    if (claim.kind !== 'claimed') throw new Error('expected a claim');
    expect(claim.probes.map((probe) => probe.breaker)).toEqual([breakerOf(primary), breakerOf(fallback)]);
    primaryServer.enqueue(overloaded);
    fallbackServer.enqueue(chatText('The fallback recovered.'));
    const answer = await runToCompletion(clock, generate(QUESTION, { probeTokens: claim.probes.map((probe) => probe.token) }));
    expect(answer.model).toBe(fallback);
    expect(clock.monotonicNow()).toBe(0);
    expect(breakerOf(fallback).snapshot().state).toBe('closed');
    expect(breakerOf(primary).snapshot()).toMatchObject({ state: 'open', cooldownMs: 10_000 });
  });

  it('gives back the probe slots it did not use once the generation is over', async () => {
    breakerOf(primary).recordGenerationFailure();
    breakerOf(fallback).recordGenerationFailure();
    const claim = claimOnRoute(route, runtime.breakers, true);
    if (claim.kind !== 'claimed') throw new Error('expected a claim');
    primaryServer.enqueue(anthropicText('The primary recovered.'));
    const answer = await runToCompletion(clock, generate(QUESTION, { probeTokens: claim.probes.map((probe) => probe.token) }));
    expect(answer.model).toBe(primary);
    expect(breakerOf(fallback).snapshot()).toMatchObject({ state: 'half_open', probeInFlight: false });
    expect(fallbackServer.requests).toHaveLength(0);
  });
});

function probeOf(admission: { readonly kind: string; readonly token?: string }): string {
  if (admission.token === undefined) throw new Error(`expected a probe, got ${admission.kind}`);
  return admission.token;
}
