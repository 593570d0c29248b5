import { beforeEach, describe, expect, it } from 'vitest';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import type { ConversationDeps } from '../../src/conversation/conversation_deps.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import type { InboundMessage } from '../../src/conversation/transport.js';
import type { ModelCapacityBreaker } from '../../src/recovery/capacity_breaker.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer, FakeStep } from '../support/fake_llm/server.js';
import type { ManualClock } from '../support/manual_clock.js';
import type { SeenEvent } from '../support/recording_sink.js';
import { runToCompletion, TEST_RECOVERY_SETTINGS, testRecoveryRuntime } from '../support/recovery_runtime.js';

const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } };
const overloads = (count: number): FakeStep[] => Array.from({ length: count }, () => overloaded);

describe('resume and waiting through an overload, on the console', () => {
  const harness = useConversationHarness();
  let fake: FakeLLMServer;
  let clock: ManualClock;
  let events: SeenEvent[];
  beforeEach(() => {
    ({ fake, events, recoveryClock: clock } = harness.current);
  });

  const deps = (autoResume: boolean, overrides: Partial<ConversationDeps> = {}): ConversationDeps => harness.current.deps(`turn_state:\n  auto_resume: ${autoResume}\n`, overrides);
  const breakerOf = (d: ConversationDeps): ModelCapacityBreaker => {
    if (d.provider === undefined) throw new Error('no model');
    return d.recovery.breakers.get(d.provider.provider, d.provider.model);
  };
  const inChannel = (channelId: string, text: string, messageId = `q-${channelId}`): InboundMessage => ({ source: 'console', channelId, authorId: 'ada', authorRoleIds: [], messageId, text });
  const noticesIn = (channelId: string): string[] => events.flatMap((e) => (e.type === 'message' && e.kind === 'notice' && e.channelId === channelId ? [e.notice] : []));
  const repliesIn = (channelId: string): string[] => events.flatMap((e) => (e.type === 'message' && e.kind === 'reply' && e.channelId === channelId ? [e.text] : []));

  /** Resolves once `holds` is true of the events told so far, checked at each new one. */
  function once(holds: () => boolean): Promise<void> {
    if (holds()) return Promise.resolve();
    return new Promise((resolve) => {
      harness.current.onEvent = () => {
        if (holds()) resolve();
      };
    });
  }

  /** `question` in channel `c1`, answered with the suspended notice while the model stays overloaded; the model's breaker is open after it. */
  async function suspended(bot: Intake): Promise<void> {
    fake.enqueue(...overloads(20));
    bot.submit(inboundFromText(inChannel('c1', 'look up milk')));
    await runToCompletion(
      clock,
      once(() => noticesIn('c1').includes('suspended')),
    );
    fake.reset();
  }

  /** Lets `ms` of simulated time pass, letting each automatic try that falls due finish before the next. */
  async function passTime(ms: number): Promise<void> {
    const end = clock.monotonicNow() + ms;
    for (;;) {
      await clock.whenSleeping();
      const next = clock.nextWakeIn() ?? Number.POSITIVE_INFINITY;
      if (clock.monotonicNow() + next > end) break;
      await clock.advanceToNextWake();
    }
    await clock.advance(end - clock.monotonicNow());
  }

  it('sends a `resume` to the model at once while its breaker is still open, and answers', async () => {
    const d = deps(false);
    const bot = new Intake(d);
    await suspended(bot);
    expect(breakerOf(d).snapshot().state).toBe('open');
    const before = clock.monotonicNow();
    fake.enqueue(chatText('Milk is a drink.'));
    bot.submit(inboundFromText(inChannel('c1', 'resume', 'r1')));
    await bot.idle();
    expect(fake.requests).toHaveLength(1);
    expect(clock.monotonicNow()).toBe(before);
    expect(noticesIn('c1')).toEqual(['suspended', 'resumed']);
    expect(repliesIn('c1')).toEqual(['Milk is a drink.']);
    expect(breakerOf(d).snapshot().state).toBe('closed');
  });

  it('answers a `resume` while another request is trying the model with when the next try is, and goes on by itself once that try succeeds', async () => {
    const d = deps(true);
    const bot = new Intake(d);
    await suspended(bot);
    // Someone else's `resume` in another channel is trying the model.
    const elsewhere = breakerOf(d).claimProbe();
    if (elsewhere.kind !== 'probe') throw new Error('the probe slot was not free');
    bot.submit(inboundFromText(inChannel('c1', 'resume', 'r1')));
    await bot.idle();
    expect(fake.requests).toEqual([]);
    expect(noticesIn('c1')).toEqual(['suspended', 'suspended']);
    expect(events.at(-1)).toMatchObject({
      turn: expect.any(String) as unknown,
      text:
        'The model provider is still overloaded, and another request is trying it right now. Your request is saved: I ' +
        'will try again at 00:00 UTC (sooner if the provider recovers), or type `resume` after that.',
    });
    fake.enqueue(chatText('Milk is a drink.'));
    breakerOf(d).recordSuccess(elsewhere.token);
    await once(() => repliesIn('c1').length === 1);
    expect(repliesIn('c1')).toEqual(['Milk is a drink.']);
    expect(noticesIn('c1')).toEqual(['suspended', 'suspended', 'resumed']);
    await bot.close();
  });

  it('tries by itself through a ten-minute outage without a word, then says `resumed` once and answers', async () => {
    const d = deps(true);
    const bot = new Intake(d);
    await suspended(bot);
    fake.enqueue(...overloads(100));
    await passTime(10 * 60_000);
    const tries = fake.requests.length;
    expect(tries).toBeGreaterThan(10);
    expect(noticesIn('c1')).toEqual(['suspended']);
    const updates = events.filter((e) => e.type === 'notice_update');
    expect(updates).toHaveLength(tries);
    expect(updates.at(-1)).toMatchObject({
      notice: 'suspended',
      text: expect.stringMatching(/^The model provider was still overloaded at 00:\d\d UTC\. .* I will try again by myself at 00:\d\d UTC, or type `resume` to try now\.$/) as unknown,
    });

    fake.reset();
    fake.enqueue(chatText('Milk is a drink.'));
    await runToCompletion(
      clock,
      once(() => repliesIn('c1').length === 1),
    );
    expect(noticesIn('c1')).toEqual(['suspended', 'resumed']);
    expect(repliesIn('c1')).toEqual(['Milk is a drink.']);
    await bot.close();
  });

  it('resumes every turn one storm suspended within a cooldown of the recovery, none held back by a probe that already ended', async () => {
    const channels = Array.from({ length: 30 }, (_, i) => `c${i + 1}`);
    // A probe that never reported back would keep its slot for five minutes.
    const settings = { ...TEST_RECOVERY_SETTINGS, breaker: { ...TEST_RECOVERY_SETTINGS.breaker, probeTimeoutMs: 300_000 } };
    const bot = new Intake(deps(true, { recovery: testRecoveryRuntime(clock, settings) }));
    fake.enqueue(...overloads(channels.length * 20));
    for (const channel of channels) bot.submit(inboundFromText(inChannel(channel, 'look up milk')));
    // Each channel sleeps once at a time: between attempts, then waiting to resume, until it has its reply.
    const working = (): number => channels.filter((channel) => repliesIn(channel).length === 0).length;
    await runToCompletion(
      clock,
      once(() => channels.every((channel) => noticesIn(channel).includes('suspended'))),
      { sleepers: working },
    );
    fake.reset();
    fake.enqueue(...channels.map(() => chatText('Milk is a drink.')));

    const recoveredAt = clock.monotonicNow();
    await runToCompletion(
      clock,
      once(() => channels.every((channel) => repliesIn(channel).length === 1)),
      { what: 'the suspended turns', maxSimulatedMs: settings.breaker.cooldownBaseMs + 1_000, sleepers: working },
    );
    expect(clock.monotonicNow() - recoveredAt).toBeLessThanOrEqual(settings.breaker.cooldownBaseMs);
    for (const channel of channels) {
      expect(noticesIn(channel), channel).toEqual(['suspended', 'resumed']);
      expect(repliesIn(channel), channel).toEqual(['Milk is a drink.']);
    }
    expect(fake.requests).toHaveLength(channels.length);
    await bot.close();
  });
});
