import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTracer } from '../../src/app/telemetry/otel_tracer.js';
import { telemetrySection } from '../../src/app/telemetry/telemetry_settings.js';
import { SecretValues } from '../../src/core/secret_values.js';
import type { Tracer } from '../../src/core/tracing.js';
import { runTurn } from '../../src/engine/run_turn.js';
import { TurnTrace } from '../../src/engine/turn_trace.js';
import { useEngineParts } from '../support/engine_harness.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeStep } from '../support/fake_llm/server.js';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp_receiver.js';
import { runToCompletion } from '../support/recovery_runtime.js';

const overloaded: FakeStep = { kind: 'reply', status: 503, body: { error: { type: 'service_unavailable_error', message: 'busy' } } };

describe("a generation's span tells its attempts, waits and give-up as events (DESIGN §10.3)", () => {
  const parts = useEngineParts();
  let collector: OtlpReceiver;
  let tracer: Tracer;

  beforeEach(async () => {
    collector = await OtlpReceiver.start();
    const settings = telemetrySection.parse({ otlp_endpoint: collector.url });
    tracer = openTracer({ ...settings, otlp_endpoint: collector.url }, SecretValues.of(['test-key']), pino({ level: 'silent' }));
  });
  afterEach(() => collector.close());

  /** Runs a fresh turn for `text` under a trace of its own, then sends every span: what the collector got of it. */
  async function tracedTurn(text: string): Promise<{ generation: ReceivedSpan | undefined; turn: ReceivedSpan | undefined; spans: readonly ReceivedSpan[] }> {
    const harness = parts.current.harness();
    const admitted = await harness.admit('m-1', text);
    const trace = TurnTrace.start(tracer, { identity: admitted.turn.identity, requesterId: 'u-1', startedBy: 'message', turnId: admitted.turn.turnId });
    await runToCompletion(harness.recoveryClock, runTurn({ ...admitted.turn, trace }, { kind: 'fresh' }, admitted.durability, harness.deps));
    await tracer.shutdown();
    const spans = await collector.waitFor((all) => all.length >= 2);
    return { generation: spans.find((span) => span.name === 'chat test-model'), turn: spans.find((span) => span.name === 'holdfast.turn'), spans };
  }

  const callSpan = (spans: readonly ReceivedSpan[], tool: string): ReceivedSpan | undefined => spans.find((span) => span.name === `execute_tool ${tool}`);
  const states = (span: ReceivedSpan | undefined): unknown[] => (span?.events ?? []).map((event) => event.attributes['holdfast.ledger.state']);

  it('records each attempt, its error class and the backoff waited before the one that answered', async () => {
    parts.current.fake.enqueue(overloaded, chatText('Milk is a drink.', { usage: { prompt_tokens: 12, completion_tokens: 5 } }));

    const { generation, turn } = await tracedTurn('What is milk?');

    expect(generation?.parentSpanId).toBe(turn?.spanId);
    expect(generation?.events.map((event) => event.name)).toEqual(['gen_ai.attempt', 'gen_ai.attempt.failed', 'holdfast.backoff', 'gen_ai.attempt']);
    expect(generation?.events[1]?.attributes).toMatchObject({ 'holdfast.attempt': 1, 'error.type': 'capacity', 'http.response.status_code': 503 });
    expect(generation?.events[2]?.attributes).toEqual({ 'holdfast.backoff.ms': 50, 'holdfast.backoff.reason': 'backoff' });
    expect(generation?.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 12, 'gen_ai.usage.output_tokens': 5, 'gen_ai.response.finish_reasons': ['stop'], 'holdfast.attempts': 2 });
    expect(generation?.statusCode).toBe(0);
    expect(turn?.attributes).toMatchObject({ 'holdfast.turn.status': 'TERMINAL_COMPLETED', 'holdfast.turn.effect': 'none', 'holdfast.turn.calls': 0 });
  });

  it('marks a generation that ran out of its deadline failed, and the turn suspended by capacity', async () => {
    parts.current.fake.enqueue(...Array.from({ length: 40 }, () => overloaded));

    const { generation, turn } = await tracedTurn('What is milk?');

    expect(generation?.statusCode).toBe(2);
    expect(generation?.attributes['error.type']).toBe('deadline');
    expect(generation?.events.at(-1)).toEqual({ name: 'holdfast.gave_up', attributes: { 'holdfast.recovery.reason': 'deadline' } });
    expect(turn?.attributes['holdfast.turn.status']).toBe('SUSPENDED');
    expect(turn?.events).toEqual([{ name: 'holdfast.turn.suspended', attributes: { 'holdfast.suspension.cause': 'capacity' } }]);
  });

  it("gives each call a span of its ledger moves, and sends the write's context to its target", async () => {
    const { fake, target } = parts.current;
    fake.enqueue(
      chatToolCalls([
        { id: 'r1', name: 'lookup', args: '{"word":"milk"}' },
        { id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' },
      ]),
      chatText('Saved.'),
    );

    const { turn, spans } = await tracedTurn('Look milk up and note it');

    const [lookup, note] = [callSpan(spans, 'lookup'), callSpan(spans, 'save_note')];
    expect(states(lookup)).toEqual(['PREPARED', 'APPLIED']);
    expect(states(note)).toEqual(['PREPARED', 'RUNNING', 'APPLIED']);
    expect(note?.parentSpanId).toBe(turn?.spanId);
    expect(target.requests.find((request) => request.path === '/notes')?.headers['traceparent']).toBe(`00-${note?.traceId}-${note?.spanId}-01`);
    expect(turn?.attributes).toMatchObject({ 'holdfast.turn.effect': 'write', 'holdfast.turn.calls': 2 });
  });

  it('marks failed the span of a call whose turn another process took while it ran, and the run as leaving the turn untouched', async () => {
    const { fake, target, store } = parts.current;
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' }]));
    // Another process's start-up sweep takes every ACTIVE turn while the write is at its target.
    target.onRequest = async () => {
      await store.sweepOnStartup();
    };

    const { turn, spans } = await tracedTurn('Note milk');

    const note = callSpan(spans, 'save_note');
    expect(note?.statusCode).toBe(2);
    expect(note?.attributes['error.type']).toBe('StaleTurnError');
    expect(states(note)).toEqual(['PREPARED', 'RUNNING']);
    expect(turn?.events.map((event) => event.name)).toEqual(['holdfast.turn.untouched']);
  });
});
