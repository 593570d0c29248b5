import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { botMessages, isPostOrEdit, replyTo, say, type BotMessageBody } from '../support/discord_bot.js';
import { discordConversation, type DiscordConversation } from '../support/discord_conversation.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { deferred } from '../support/deferred.js';
import { FakeDiscord } from '../support/fake_discord/server.js';
import { CHAT_DONE, chatChunk, chatText } from '../support/fake_llm/openai_chat.js';
import { recordedStream } from '../support/fake_llm/recorded.js';

const REASONING = /Okay, the user|Keep it short|think>/;

describe('the model’s reasoning, on the local Discord', () => {
  const harness = useConversationHarness();
  let discord: FakeDiscord;
  let conversation: DiscordConversation | undefined;

  beforeEach(async () => {
    discord = await FakeDiscord.start();
  });
  afterEach(async () => {
    await conversation?.close();
    conversation = undefined;
    await discord.close();
  });

  async function connect(extraConfig = ''): Promise<void> {
    conversation = await discordConversation(discord, (sink, source) => harness.current.deps(extraConfig, { sink, source }));
  }

  /** Everything the bot posted or edited in the channel, drafts included. */
  const everythingShown = (): string[] => discord.requests.filter(isPostOrEdit(discord)).map((r) => (r.body as BotMessageBody).content ?? '');

  /** Asks `/status` until it says the model is thinking: the reasoning has reached the bot. */
  async function untilThinking(): Promise<void> {
    for (;;) {
      const status = await replyTo(discord, await say(discord, '/status'));
      if (status.content?.includes('the model is thinking') === true) return;
    }
  }

  it('never shows a <think> block split over deltas, in the draft or the reply, and keeps it out of the history the model reads next', async () => {
    await connect();
    harness.current.fake.enqueue(recordedStream('qwen3_think_split_tags.sse'), chatText('It comes from cows, mostly.'));
    const asked = await say(discord, 'what is milk?');
    await discord.whenRequest(() => botMessages(discord).some((m) => m.content === 'Milk is a white liquid made by mammals.'));
    await conversation?.intake.idle();
    expect(everythingShown().filter((content) => REASONING.test(content))).toEqual([]);
    expect((await replyTo(discord, asked)).content).toMatch(/^Milk is/);

    await say(discord, 'and where from?');
    await discord.whenRequest(() => botMessages(discord).some((m) => m.content === 'It comes from cows, mostly.'));
    const history = (harness.current.fake.requests[1]?.body as { messages: { role: string; content: unknown }[] }).messages;
    expect(history.filter((m) => m.role === 'assistant')).toEqual([{ role: 'assistant', content: 'Milk is a white liquid made by mammals.' }]);
  });

  it('says how long the model thought under the reply with show_reasoning: summary', async () => {
    await connect('chat:\n  show_reasoning: summary\n');
    const thinking = deferred();
    harness.current.fake.enqueue(recordedStream('qwen3_think_split_tags.sse', { after: 5, until: thinking.promise }));
    await say(discord, 'what is milk?');
    await untilThinking();
    await harness.current.recoveryClock.advance(12_000);
    thinking.resolve();
    await discord.whenRequest(() => botMessages(discord).some((m) => m.content.startsWith('Milk is a white liquid made by mammals.\n')));
    expect(botMessages(discord).map((m) => m.content)).toContain('Milk is a white liquid made by mammals.\n-# thought for 12 s');
    expect(everythingShown().filter((content) => REASONING.test(content))).toEqual([]);
  });

  it('counts reasoning a provider streams apart from the text, and shows none of it', async () => {
    await connect('chat:\n  show_reasoning: summary\n');
    const thinking = deferred();
    harness.current.fake.enqueue({
      kind: 'stream',
      chunks: [
        chatChunk({ role: 'assistant', reasoning_content: 'Okay, the user asks what milk is.' }),
        thinking.promise,
        chatChunk({ content: 'Milk is a drink.' }),
        chatChunk({}, { finishReason: 'stop' }),
        CHAT_DONE,
      ],
    });
    await say(discord, 'what is milk?');
    await untilThinking();
    await harness.current.recoveryClock.advance(3_000);
    thinking.resolve();
    await discord.whenRequest(() => botMessages(discord).some((m) => m.content.startsWith('Milk is a drink.')));
    await conversation?.intake.idle();
    expect(botMessages(discord).map((m) => m.content)).toContain('Milk is a drink.\n-# thought for 3 s');
    expect(everythingShown().filter((content) => REASONING.test(content))).toEqual([]);
  });

  it('adds nothing under the reply by default', async () => {
    await connect();
    harness.current.fake.enqueue(recordedStream('qwen3_think_split_tags.sse'));
    await say(discord, 'what is milk?');
    await discord.whenRequest(() => botMessages(discord).some((m) => m.content.startsWith('Milk is')));
    await conversation?.intake.idle();
    expect(botMessages(discord).map((m) => m.content)).toContain('Milk is a white liquid made by mammals.');
  });
});
