import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { botMessages, isPostOrEdit, say, shown, type BotMessageBody } from '../support/discord_bot.js';
import { discordConversation, type DiscordConversation } from '../support/discord_conversation.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { deferred } from '../support/deferred.js';
import { FakeDiscord } from '../support/fake_discord/server.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';

/** A second read tool on the target, beside `lookup`: continues the harness's `tools.http` list. */
const WEATHER = `    - name: weather
      description: The weather in a city.
      url: TARGET/weather/{city}
      effect: read
      timeout_seconds: 5
      parameters: { type: object, properties: { city: { type: string } }, required: [city] }
`;

describe('a tool at work, on the local Discord', () => {
  const harness = useConversationHarness();
  let discord: FakeDiscord;
  let conversation: DiscordConversation | undefined;

  beforeEach(async () => {
    discord = await FakeDiscord.start();
    conversation = await discordConversation(discord, (sink, source) => harness.current.deps(WEATHER.replace('TARGET', harness.current.target.url), { sink, source }));
  });
  afterEach(async () => {
    await conversation?.close();
    conversation = undefined;
    await discord.close();
  });

  /** Everything the bot posted or edited in the channel, drafts included. */
  const everythingShown = (): string[] => discord.requests.filter(isPostOrEdit(discord)).map((r) => (r.body as BotMessageBody).content ?? '');

  /** Resolves once the tool target has seen `count` calls. */
  function whenCalls(count: number): Promise<void> {
    const { target } = harness.current;
    return new Promise((resolve) => {
      target.onRequest = () => {
        if (target.requests.length >= count) resolve();
      };
    });
  }

  it('shows the calls of a step that run longer than 2 s together in the draft, until the answer replaces them', async () => {
    const { fake, target, store } = harness.current;
    const slow = deferred();
    target.reply({ hold: slow.promise }, { hold: slow.promise });
    fake.enqueue(
      chatToolCalls([
        { id: 'c1', name: 'lookup', args: '{"word":"milk"}' },
        { id: 'c2', name: 'weather', args: '{"city":"Oslo"}' },
      ]),
      chatText('Milk is white; Oslo is cold.'),
    );
    const called = whenCalls(2);
    await say(discord, 'what is milk, and the weather in Oslo?');
    await called;
    await store.clock.advance(1_999);
    expect(everythingShown().filter((content) => content.includes('running'))).toEqual([]);
    await store.clock.advance(1);
    await shown(discord, 'ℹ️ running lookup, weather…');
    slow.resolve();
    await discord.whenRequest(() => botMessages(discord).some((m) => m.content === 'Milk is white; Oslo is cold.'));
    await conversation?.intake.idle();
    expect(botMessages(discord).map((m) => m.content)).toEqual(['Milk is white; Oslo is cold.']);
  });

  it('shows nothing of a call that answers at once', async () => {
    const { fake } = harness.current;
    fake.enqueue(chatToolCalls([{ id: 'c1', name: 'lookup', args: '{"word":"milk"}' }]), chatText('Milk is white.'));
    await say(discord, 'what is milk?');
    await discord.whenRequest(() => botMessages(discord).some((m) => m.content === 'Milk is white.'));
    await conversation?.intake.idle();
    await harness.current.store.clock.advance(5_000);
    expect(everythingShown().filter((content) => content.includes('running'))).toEqual([]);
  });
});
