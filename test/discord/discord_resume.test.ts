import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { botMessages, isPost, replyTo, say, shown, type BotMessageBody } from '../support/discord_bot.js';
import { discordConversation, type DiscordConversation } from '../support/discord_conversation.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { FakeDiscord } from '../support/fake_discord/server.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import type { FakeStep } from '../support/fake_llm/server.js';
import type { ManualClock } from '../support/manual_clock.js';
import { runToCompletion } from '../support/recovery_runtime.js';

const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } };
const overloads = (count: number): FakeStep[] => Array.from({ length: count }, () => overloaded);
const OVERLOADED_NOTICE = /^ℹ️ The model provider is overloaded right now\./;

describe('resume and waiting through an overload, on the local Discord', { timeout: 60_000 }, () => {
  const harness = useConversationHarness();
  let discord: FakeDiscord;
  let conversation: DiscordConversation | undefined;
  let clock: ManualClock;

  beforeEach(async () => {
    discord = await FakeDiscord.start();
    clock = harness.current.recoveryClock;
  });
  afterEach(async () => {
    await conversation?.close();
    conversation = undefined;
    await discord.close();
  });

  async function connect(autoResume: boolean): Promise<void> {
    conversation = await discordConversation(discord, (sink, source) => harness.current.deps(`turn_state:\n  auto_resume: ${autoResume}\n`, { sink, source }));
  }

  /** The world's user asks while the model stays overloaded; resolves once the bot said the request is saved, the model's breaker open. */
  async function suspendedQuestion(): Promise<void> {
    harness.current.fake.enqueue(...overloads(20));
    const asked = await say(discord, 'look up milk');
    await runToCompletion(clock, replyTo(discord, asked));
    // The reply's draft shows the waits first, then becomes the suspended notice.
    await runToCompletion(
      clock,
      discord.whenRequest((r) => OVERLOADED_NOTICE.test((r.body as BotMessageBody | undefined)?.content ?? '')),
    );
    harness.current.fake.reset();
  }

  /** Lets `ms` of simulated time pass, letting each automatic try that falls due finish before the next. */
  async function passTime(ms: number): Promise<void> {
    const end = clock.monotonicNow() + ms;
    for (;;) {
      await clock.whenSleeping();
      if (clock.monotonicNow() + (clock.nextWakeIn() ?? Number.POSITIVE_INFINITY) > end) break;
      await clock.advanceToNextWake();
    }
    await clock.advance(end - clock.monotonicNow());
  }

  it('sends a `resume` to the model at once while its breaker is still open, and answers in the channel', async () => {
    await connect(false);
    await suspendedQuestion();
    const before = clock.monotonicNow();
    harness.current.fake.enqueue(chatText('Milk is a drink.'));
    const resume = await say(discord, 'resume');
    const answering = (r: { method: string; path: string; body: unknown }): boolean => isPost(discord)(r) && (r.body as BotMessageBody).message_reference?.message_id === resume;
    await discord.whenRequest((r) => answering(r) && discord.requests.filter(answering).length >= 2);
    expect(discord.requests.filter(answering).map((r) => (r.body as BotMessageBody).content)).toEqual(['ℹ️ Continuing your saved request.', 'Milk is a drink.']);
    expect(harness.current.fake.requests).toHaveLength(1);
    expect(clock.monotonicNow()).toBe(before);
  });

  it('through a ten-minute outage edits its one suspended notice at each try, then says `resumed` once and answers', async () => {
    await connect(true);
    await suspendedQuestion();
    const [notice] = botMessages(discord);
    if (notice === undefined) throw new Error('no notice');
    const editsOf = (): number => discord.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith(`/messages/${notice.id}`)).length;
    const editsBefore = editsOf();
    harness.current.fake.enqueue(...overloads(100));
    await passTime(10 * 60_000);
    const tries = harness.current.fake.requests.length;
    expect(tries).toBeGreaterThan(10);

    harness.current.fake.reset();
    harness.current.fake.enqueue(chatText('Milk is a drink.'));
    await runToCompletion(clock, shown(discord, 'Milk is a drink.'));
    const shownNow = botMessages(discord);
    expect(shownNow.map((m) => m.id)).toEqual([notice.id, expect.any(String), expect.any(String)]);
    expect(shownNow.map((m) => m.content)).toEqual([
      expect.stringMatching(/^ℹ️ The model provider was still overloaded at 00:\d\d UTC\. .* I will try again by myself at 00:\d\d UTC, or type `resume` to try now\.$/),
      'ℹ️ Continuing your saved request.',
      'Milk is a drink.',
    ]);
    expect(editsOf() - editsBefore).toBe(tries);
  });
});
