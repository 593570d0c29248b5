import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BotMessageBody } from '../support/discord_bot.js';
import { discordConversation, type DiscordConversation } from '../support/discord_conversation.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { FakeDiscord, type RecordedRequest } from '../support/fake_discord/server.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import type { FakeStep } from '../support/fake_llm/server.js';
import type { ManualClock } from '../support/manual_clock.js';
import { TEST_RECOVERY_SETTINGS, testRecoveryRuntime } from '../support/recovery_runtime.js';

const CHANNELS = 24;
const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } };
const overloads = (count: number): FakeStep[] => Array.from({ length: count }, () => overloaded);
const OVERLOADED_NOTICE = /^ℹ️ The model provider is overloaded right now\./;
const ANSWER = 'Milk is a drink.';

describe('one overload storm over many channels, on the local Discord', { timeout: 60_000 }, () => {
  const harness = useConversationHarness();
  let discord: FakeDiscord;
  let conversation: DiscordConversation | undefined;

  beforeEach(async () => {
    discord = await FakeDiscord.start({ channels: CHANNELS });
  });
  afterEach(async () => {
    await conversation?.close();
    conversation = undefined;
    await discord.close();
  });

  const clock = (): ManualClock => harness.current.recoveryClock;
  const messagesPath = (channelId: string): string => `/channels/${channelId}/messages`;
  const isPostIn =
    (channelId: string) =>
    (r: Pick<RecordedRequest, 'method' | 'path'>): boolean =>
      r.method === 'POST' && r.path === messagesPath(channelId);
  const isPostOrEditIn =
    (channelId: string) =>
    (r: Pick<RecordedRequest, 'method' | 'path'>): boolean =>
      isPostIn(channelId)(r) || (r.method === 'PATCH' && r.path.startsWith(`${messagesPath(channelId)}/`));
  const contentOf = (r: RecordedRequest): string => (r.body as BotMessageBody | undefined)?.content ?? '';
  const answeredIn = (channelId: string): boolean => discord.requests.some((r) => isPostOrEditIn(channelId)(r) && contentOf(r) === ANSWER);

  /**
   * Lets simulated time pass until `done()` holds, waking the next sleep only while `asleep()`
   * sleeps are pending: every channel still at work waits on the clock, none is halfway through a
   * request to the fake Discord or the fake model, so time never runs ahead of real I/O. Fails
   * when the next wake lies beyond `maxSimulatedMs`.
   */
  async function passTimeUntil(done: () => boolean, asleep: () => number, maxSimulatedMs: number): Promise<void> {
    const startedAt = clock().monotonicNow();
    for (;;) {
      const seen = discord.requests.length;
      if (done()) return;
      await Promise.race([clock().whenSleeping(asleep()), discord.whenRequest(() => discord.requests.length > seen)]);
      if (discord.requests.length > seen) continue;
      const elapsed = clock().monotonicNow() - startedAt;
      const next = clock().nextWakeIn() ?? 0;
      if (elapsed + next > maxSimulatedMs) throw new Error(`still waiting after ${elapsed} ms of simulated time: ${clock().pendingSleeps} sleep(s) pending, the next in ${next} ms`);
      await clock().advanceToNextWake();
    }
  }

  /** The bot's messages in `channelId` as members see them now (edits applied), oldest first. */
  const botMessagesIn = (channelId: string): string[] => discord.messagesIn(channelId).flatMap((m) => (m.author.id === discord.world.bot.id ? [m.content] : []));

  it('answers in every channel one storm suspended within a cooldown of the recovery, each with one suspended and one resumed notice', async () => {
    // A waiter that slept until a finished probe's expiry would hold its channel back five minutes.
    const settings = { ...TEST_RECOVERY_SETTINGS, breaker: { ...TEST_RECOVERY_SETTINGS.breaker, probeTimeoutMs: 300_000 } };
    const recovery = testRecoveryRuntime(clock(), settings);
    conversation = await discordConversation(discord, (sink, source) => harness.current.deps('turn_state:\n  auto_resume: true\n', { sink, source, recovery }));
    const { channelIds, bot, user } = discord.world;
    expect(channelIds).toHaveLength(CHANNELS);
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);

    harness.current.fake.enqueue(...overloads(CHANNELS * 20));
    for (const channelId of channelIds) {
      await discord.dispatchMessage({ channelId, authorId: user.id, content: `<@${bot.id}> look up milk`, mentionsBot: true });
    }
    // Every turn retries until its deadline, the same instant for all: the model's breaker opens then, and no more
    // time passes while each channel shows its suspended notice and its waiter goes to sleep until the breaker admits it.
    await passTimeUntil(
      () => recovery.breakers.snapshots().some((breaker) => breaker.state === 'open'),
      () => CHANNELS,
      60_000,
    );
    await Promise.all(channelIds.map((channelId) => discord.whenRequest((r) => isPostOrEditIn(channelId)(r) && OVERLOADED_NOTICE.test(contentOf(r)))));
    await clock().whenSleeping(CHANNELS);
    harness.current.fake.reset();
    harness.current.fake.enqueue(...channelIds.map(() => chatText(ANSWER)));

    const recoveredAt = clock().monotonicNow();
    await passTimeUntil(
      () => channelIds.every(answeredIn),
      () => channelIds.filter((channelId) => !answeredIn(channelId)).length,
      settings.breaker.cooldownBaseMs + 1_000,
    );
    expect(clock().monotonicNow() - recoveredAt).toBeLessThanOrEqual(settings.breaker.cooldownBaseMs);
    for (const channelId of channelIds) {
      expect(botMessagesIn(channelId), channelId).toEqual([expect.stringMatching(OVERLOADED_NOTICE), 'ℹ️ Continuing your saved request.', ANSWER]);
      expect(discord.requests.filter(isPostIn(channelId)), channelId).toHaveLength(3);
    }
    expect(harness.current.fake.requests).toHaveLength(CHANNELS);
    // Every waiting channel listens for the shutdown at once; the operator's log must not call that a leak.
    process.off('warning', onWarning);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});
