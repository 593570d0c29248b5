import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { showRouteHealth } from '../../src/app/lifecycle.js';
import type { ConversationDeps } from '../../src/conversation/conversation_deps.js';
import { isPost, say, type BotMessageBody } from '../support/discord_bot.js';
import { discordConversation, type DiscordConversation } from '../support/discord_conversation.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { FakeDiscord } from '../support/fake_discord/server.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import type { FakeStep } from '../support/fake_llm/server.js';
import type { ManualClock } from '../support/manual_clock.js';
import { TEST_RECOVERY_SETTINGS } from '../support/recovery_runtime.js';

const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } };
const overloads = (count: number): FakeStep[] => Array.from({ length: count }, () => overloaded);
const STATUS = 'Ask me about dairy';
const OVERLOADED = 'model overloaded — requests are saved';
/** Discord's activity type of a custom status. */
const CUSTOM = 4;

describe('the bot’s status on the local Discord', { timeout: 60_000 }, () => {
  const harness = useConversationHarness();
  let discord: FakeDiscord;
  let conversation: DiscordConversation | undefined;
  let clock: ManualClock;
  let stopWatching: AbortController | undefined;
  let watching: Promise<void> | undefined;

  beforeEach(async () => {
    discord = await FakeDiscord.start();
    clock = harness.current.recoveryClock;
  });
  afterEach(async () => {
    stopWatching?.abort();
    await watching;
    await conversation?.close();
    conversation = undefined;
    await discord.close();
  });

  /** The bot on the local Discord with `settings` in its `discord` section, its status following the default route's health as the program wires it. */
  async function connect(settings: Record<string, unknown>): Promise<void> {
    let deps: ConversationDeps | undefined;
    conversation = await discordConversation(discord, (sink, source) => (deps = harness.current.deps('', { sink, source })), settings);
    if (deps === undefined) throw new Error('no dependencies');
    stopWatching = new AbortController();
    watching = showRouteHealth(conversation.transport, deps, stopWatching.signal);
  }

  /** Lets `ms` of simulated time pass, letting each wait that falls due finish before the next. */
  async function passTime(ms: number): Promise<void> {
    const end = clock.monotonicNow() + ms;
    for (;;) {
      await clock.whenSleeping();
      if (clock.monotonicNow() + (clock.nextWakeIn() ?? Number.POSITIVE_INFINITY) > end) break;
      await clock.advanceToNextWake();
    }
    await clock.advance(end - clock.monotonicNow());
  }

  /** A member asks while the model stays overloaded, until the reply's deadline: the model's breaker opens and the request is saved. */
  async function overloadedQuestion(): Promise<void> {
    harness.current.fake.enqueue(...overloads(20));
    await say(discord, 'look up milk');
    await passTime(TEST_RECOVERY_SETTINGS.deadlineMs);
    harness.current.fake.reset();
  }

  /** The cooldown ends: the breaker lets the saved request through as its probe, and the model answers it. */
  async function cooldownPasses(): Promise<void> {
    harness.current.fake.enqueue(chatText('Milk is a drink.'));
    await clock.advance(TEST_RECOVERY_SETTINGS.breaker.cooldownBaseMs);
    await discord.whenRequest((r) => isPost(discord)(r) && (r.body as BotMessageBody).content === 'Milk is a drink.');
  }

  /** The custom status of each presence update the bot sent, in order; `null` for one that shows none. */
  const statuses = (): (string | null)[] => discord.presences.map((presence) => presence.activities.find((activity) => activity.type === CUSTOM)?.state ?? null);

  it('shows discord.status_message, says the model is overloaded while every model of the default route is refused, and shows the message again once one admits', async () => {
    await connect({ status_message: STATUS });
    await discord.whenPresences(1);
    expect(discord.presences).toEqual([{ shard: [0, 1], status: 'online', activities: [{ type: CUSTOM, name: 'Custom Status', state: STATUS }] }]);

    await overloadedQuestion();
    await discord.whenPresences(2);
    expect(statuses()).toEqual([STATUS, OVERLOADED]);

    await cooldownPasses();
    await discord.whenPresences(3);
    expect(statuses()).toEqual([STATUS, OVERLOADED, STATUS]);
  });

  it('without discord.status_message sends no status until the model is overloaded, and clears it once the model admits again', async () => {
    await connect({});
    await overloadedQuestion();
    await discord.whenPresences(1);
    expect(statuses()).toEqual([OVERLOADED]);

    await cooldownPasses();
    await discord.whenPresences(2);
    expect(discord.presences.map((presence) => presence.activities)).toEqual([[{ type: CUSTOM, name: 'Custom Status', state: OVERLOADED }], []]);
  });
});
