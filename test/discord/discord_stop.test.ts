import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { botMessages, heldAnswer, replyTo, say, shown } from '../support/discord_bot.js';
import { discordConversation, type DiscordConversation } from '../support/discord_conversation.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { deferred } from '../support/deferred.js';
import { FakeDiscord } from '../support/fake_discord/server.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';

describe('/stop while a write runs, on the local Discord', () => {
  const harness = useConversationHarness();
  let discord: FakeDiscord;
  let conversation: DiscordConversation | undefined;

  beforeEach(async () => {
    discord = await FakeDiscord.start();
    conversation = await discordConversation(discord, (sink, source) => harness.current.deps('', { sink, source }));
  });
  afterEach(async () => {
    await conversation?.close();
    conversation = undefined;
    await discord.close();
  });

  /** Resolves once the tool target has seen its first call. */
  function whenCalled(): Promise<void> {
    const { target } = harness.current;
    return new Promise((resolve) => {
      target.onRequest = () => resolve();
    });
  }

  it('tells what the write came to once it settled, and the model reads it in the history next turn', async () => {
    const { fake, target } = harness.current;
    const slow = deferred();
    target.reply({ hold: slow.promise, body: 'Ticket T-1 was created' });
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"printer on fire"}' }]), chatText('I opened a ticket about the printer.'));
    const called = whenCalled();
    const asked = await say(discord, 'open a ticket: the printer is on fire');
    await called;
    const stop = await say(discord, '/stop');
    expect((await replyTo(discord, stop)).content).toBe('ℹ️ Stopping… `save_note` is already running and will finish first.');
    slow.resolve();
    await conversation?.intake.idle();
    const told = await discord.whenRequest((r) => r.method === 'POST' && (r.body as { content?: string } | undefined)?.content?.startsWith('ℹ️ Stopped.') === true);
    expect((told.body as { content: string }).content).toBe('ℹ️ Stopped.\n`save_note` finished before stopping: Ticket T-1 was created');
    expect((told.body as { message_reference?: { message_id: string } }).message_reference?.message_id).toBe(asked);
    expect(fake.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(1);

    fake.enqueue(chatText('Yes: ticket T-1.'));
    await say(discord, 'did the ticket get opened?');
    await fake.whenRequests(2);
    const messages = (fake.requests[1]?.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role !== 'system');
    expect(messages).toEqual([
      { role: 'user', content: '[alice]: open a ticket: the printer is on fire' },
      { role: 'assistant', content: 'Stopped.\n`save_note` finished before stopping: Ticket T-1 was created' },
      { role: 'user', content: '[alice]: did the ticket get opened?' },
    ]);
  });

  it('says only "Stopped." when nothing was running with an effect', async () => {
    const { fake } = harness.current;
    const held = deferred();
    fake.enqueue(heldAnswer('Milk', held.promise, ' is white.'));
    await say(discord, 'what is milk?');
    await shown(discord, 'Milk');
    await say(discord, '/stop');
    held.resolve();
    await conversation?.intake.idle();
    await discord.whenRequest(() => botMessages(discord).some((m) => m.content === 'ℹ️ Stopped.'));
    expect(botMessages(discord).map((m) => m.content)).toEqual(['ℹ️ Stopped.', 'ℹ️ Stopping…']);
  });
});
