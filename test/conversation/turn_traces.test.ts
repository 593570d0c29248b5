import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTracer } from '../../src/app/telemetry/otel_tracer.js';
import { telemetrySection } from '../../src/app/telemetry/telemetry_settings.js';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import type { InboundMessage } from '../../src/conversation/transport.js';
import { NO_SECRETS } from '../../src/core/secret_values.js';
import type { Tracer } from '../../src/core/tracing.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import type { FakeStep } from '../support/fake_llm/server.js';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp_receiver.js';
import { runToCompletion } from '../support/recovery_runtime.js';

const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } };

describe('a turn suspended by an overload and resumed by its requester, traced (DESIGN §10.3)', () => {
  const harness = useConversationHarness();
  let collector: OtlpReceiver;
  let tracer: Tracer;
  beforeEach(async () => {
    collector = await OtlpReceiver.start();
    tracer = openTracer({ ...telemetrySection.parse({ otlp_endpoint: collector.url }), otlp_endpoint: collector.url }, NO_SECRETS, pino({ level: 'silent' }));
  });
  afterEach(() => collector.close());

  const said = (text: string, messageId: string): InboundMessage => ({ source: 'console', channelId: 'c1', authorId: 'ada', authorRoleIds: [], messageId, text });
  const named = (spans: readonly ReceivedSpan[], name: string): ReceivedSpan[] => spans.filter((span) => span.name === name);

  it('traces each run under the message that asked for it, the resumed one linked to the suspended one and going to the open breaker as its probe', async () => {
    const { fake, recoveryClock } = harness.current;
    const bot = new Intake(harness.current.deps('turn_state:\n  auto_resume: false\n', { tracer }));
    fake.enqueue(...Array.from({ length: 20 }, () => overloaded));
    bot.submit(inboundFromText(said('look up milk', 'q1')));
    await runToCompletion(recoveryClock, bot.idle());
    fake.reset();
    fake.enqueue(chatText('Milk is a drink.'));
    bot.submit(inboundFromText(said('resume', 'r1')));
    await bot.idle();
    await tracer.shutdown();

    const spans = await collector.waitFor((all) => named(all, 'holdfast.message').length === 2);
    const [asked, resumed] = named(spans, 'holdfast.turn');
    const messages = named(spans, 'holdfast.message');
    expect(asked).toMatchObject({ parentSpanId: messages[0]?.spanId, attributes: { 'holdfast.turn.status': 'SUSPENDED', 'holdfast.turn.started_by': 'message' } });
    expect(asked?.events).toEqual([{ name: 'holdfast.turn.suspended', attributes: { 'holdfast.suspension.cause': 'capacity' } }]);
    expect(resumed).toMatchObject({
      parentSpanId: messages[1]?.spanId,
      attributes: { 'holdfast.turn.status': 'TERMINAL_COMPLETED', 'holdfast.turn.started_by': 'requester', 'holdfast.turn.runs_before': 1 },
      links: [{ traceId: asked?.traceId, spanId: asked?.spanId }],
    });
    expect(messages[1]?.attributes['holdfast.message.kind']).toBe('resume');
    const probe = named(spans, 'chat test-model').find((span) => span.traceId === resumed?.traceId);
    expect(probe?.events.map((event) => [event.name, event.attributes['holdfast.breaker.probe']])).toEqual([['gen_ai.attempt', true]]);
  });
});
