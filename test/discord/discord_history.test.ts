import { describe, expect, it } from 'vitest';
import { discordConfigYaml, heldAnswer, type InProcessBot, replyTo, say, userMessagesOf } from '../support/discord_bot.js';
import { useDiscordWorld } from '../support/discord_world.js';
import { deferred } from '../support/deferred.js';
import { chatText } from '../support/fake_llm/openai_chat.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAEUlEQVR4nGP4z8DwH4YZkDkAm34L9XKwuTwAAAAASUVORK5CYII=', 'base64');
/** A history budget the first question and its answer go over, summarised by the model. */
const SMALL_SUMMARISED_HISTORY = 'chat:\n  history_max_chars: 40\n  compaction: summarize\n';
const SUMMARY_INSTRUCTION = /^Summarise the conversation below/;
/** A second member of the world's server, who goes by a nickname there. */
const BOB = '1100000000000000042';

/** The conversation of a recorded OpenAI chat request, without its system prompt. */
function conversationOf(body: unknown): unknown[] {
  return (body as { messages: { role: string }[] }).messages.filter((m) => m.role !== 'system');
}

/** The system prompt of a recorded OpenAI chat request. */
function systemOf(body: unknown): unknown {
  return (body as { messages: { role: string; content: unknown }[] }).messages.find((m) => m.role === 'system')?.content;
}

describe('the channel history on Discord follows what members do', { timeout: 60_000 }, () => {
  const world = useDiscordWorld();

  async function connected(extra = ''): Promise<InProcessBot> {
    const bot = world.start(discordConfigYaml(world.discord, world.fake.baseUrl, extra));
    await bot.logged('connected to Discord');
    return bot;
  }

  /** The world's user says `text` and the bot answers it; resolves with the message's id. */
  async function answered(text: string): Promise<string> {
    const id = await say(world.discord, text);
    await replyTo(world.discord, id);
    return id;
  }

  it('shows the model who said what: each member’s message under their display name, the bot’s replies as its own, after a restart too', async () => {
    world.fake.enqueue(chatText('Milk is a drink.'), chatText('Tea is a drink too.'), chatText('Bob asked about tea.'));
    await connected();
    await answered('what is milk?');
    const bobs = await world.discord.dispatchMessage({
      channelId: world.discord.world.channelId,
      authorId: BOB,
      authorNick: 'Bob',
      content: `<@${world.discord.world.bot.id}> and tea?`,
      mentionsBot: true,
    });
    await replyTo(world.discord, bobs);
    expect(conversationOf(world.fake.requests[1]?.body)).toEqual([
      { role: 'user', content: '[alice]: what is milk?' },
      { role: 'assistant', content: 'Milk is a drink.' },
      { role: 'user', content: '[Bob]: and tea?' },
    ]);

    expect(await world.stop()).toBe(0);
    await connected();
    await answered('what did Bob ask?');
    expect(conversationOf(world.fake.requests[2]?.body)).toEqual([
      { role: 'user', content: '[alice]: what is milk?' },
      { role: 'assistant', content: 'Milk is a drink.' },
      { role: 'user', content: '[Bob]: and tea?' },
      { role: 'assistant', content: 'Tea is a drink too.' },
      { role: 'user', content: '[alice]: what did Bob ask?' },
    ]);
  });

  it('sends the next turn an edited message as it reads now', async () => {
    world.fake.enqueue(chatText('Noted.'), chatText('Felix.'));
    const bot = await connected();
    const first = await answered('my cat is called Tom');
    world.discord.editUserMessage(first, `<@${world.discord.world.bot.id}> my cat is called Felix`);
    await bot.logged('history follows an edited message');
    await answered('what is my cat called?');
    expect(userMessagesOf(world.fake.requests[1]?.body)).toEqual([
      { role: 'user', content: '[alice]: my cat is called Felix' },
      { role: 'user', content: '[alice]: what is my cat called?' },
    ]);
  });

  it('leaves a deleted message out of the next turn', async () => {
    world.fake.enqueue(chatText('Noted.'), chatText('I do not know.'));
    const bot = await connected();
    const first = await answered('my password is hunter2');
    world.discord.deleteUserMessage(first);
    await bot.logged('history follows deleted messages');
    await answered('what did I tell you?');
    expect(userMessagesOf(world.fake.requests[1]?.body)).toEqual([{ role: 'user', content: '[alice]: what did I tell you?' }]);
  });

  it('leaves messages a moderator purged at once out of the next turn', async () => {
    world.fake.enqueue(chatText('One.'), chatText('Two.'), chatText('Three.'));
    const bot = await connected();
    const first = await answered('first secret');
    const second = await answered('second secret');
    world.discord.deleteUserMessages(world.discord.world.channelId, [first, second]);
    await bot.logged('history follows deleted messages');
    await answered('anything left?');
    expect(userMessagesOf(world.fake.requests[2]?.body)).toEqual([{ role: 'user', content: '[alice]: anything left?' }]);
  });

  it('shows a later turn an image sent with an earlier message', async () => {
    world.fake.enqueue(chatText('A dot.'), chatText('It was red.'));
    const bot = world.start(discordConfigYaml(world.discord, world.fake.baseUrl).replace('llm:\n', 'llm:\n  vision: true\n'));
    await bot.logged('connected to Discord');
    const first = await world.discord.dispatchMessage({
      channelId: world.discord.world.channelId,
      authorId: world.discord.world.user.id,
      content: `<@${world.discord.world.bot.id}> look at this`,
      mentionsBot: true,
      attachments: [{ filename: 'dot.png', contentType: 'image/png', data: PNG }],
    });
    await replyTo(world.discord, first);
    await answered('what colour was the dot?');
    const later = JSON.stringify(userMessagesOf(world.fake.requests[1]?.body));
    expect(later).toContain('look at this');
    expect(later).toContain(`data:image/png;base64,${PNG.toString('base64')}`);
  });

  it('answers the next message while the history is still being summarised, and keeps a summary only of the conversation as it still is', async () => {
    const summaryHeld = deferred();
    world.fake.enqueue(
      chatText('Milk is a drink that people pour into their tea.'),
      heldAnswer('They talked', summaryHeld.promise, ' about milk.'),
      chatText('Tea is a drink too.'),
      chatText('They talked about milk and tea.'),
      chatText('Both are drinks.'),
    );
    const bot = await connected(SMALL_SUMMARISED_HISTORY);
    await answered('tell me about milk');
    await world.fake.whenRequests(2);
    expect(systemOf(world.fake.requests[1]?.body)).toMatch(SUMMARY_INSTRUCTION);

    expect((await replyTo(world.discord, await say(world.discord, 'and tea?'))).content).toBe('Tea is a drink too.');
    expect(world.fake.requests).toHaveLength(3);

    // The summary written meanwhile is of a conversation that moved on: it is not kept, and the history is summarised again.
    summaryHeld.resolve();
    await bot.logged('history summarised to fit its budget');
    expect(systemOf(world.fake.requests[3]?.body)).toMatch(SUMMARY_INSTRUCTION);
    await answered('which is better?');
    expect(userMessagesOf(world.fake.requests[4]?.body)[0]).toEqual({ role: 'user', content: 'Summary of the earlier conversation: They talked about milk and tea.' });
  });

  it('stops promptly while the history is being summarised, and keeps the history to summarise later', async () => {
    world.fake.enqueue(chatText('Milk is a drink that people pour into their tea.'), { kind: 'no_response' });
    await connected(SMALL_SUMMARISED_HISTORY);
    await answered('tell me about milk');
    await world.fake.whenRequests(2);

    expect(await world.stop()).toBe(0);
    await world.fake.whenClientClosed(1);

    world.fake.enqueue(chatText('It is white.'));
    await connected(SMALL_SUMMARISED_HISTORY);
    await answered('what colour is it?');
    expect(userMessagesOf(world.fake.requests[2]?.body)).toEqual([
      { role: 'user', content: '[alice]: tell me about milk' },
      { role: 'user', content: '[alice]: what colour is it?' },
    ]);
  });
});
