import { afterEach, describe, expect, it } from 'vitest';
import { botMessages, say, shown } from '../support/discord_bot.js';
import { discordConversation, type DiscordConversation } from '../support/discord_conversation.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { FakeDiscord } from '../support/fake_discord/server.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';

const HOUR = 3_600_000;

describe('limits on what the bot spends, on the local Discord', () => {
  const harness = useConversationHarness();
  let discord: FakeDiscord | undefined;
  let conversation: DiscordConversation | undefined;

  afterEach(async () => {
    await conversation?.close();
    conversation = undefined;
    await discord?.close();
    discord = undefined;
  });

  /** The local Discord and a conversation over the harness's store and fake model, with `extra` configuration. */
  async function start(extra: string): Promise<FakeDiscord> {
    const local = await FakeDiscord.start();
    discord = local;
    conversation = await discordConversation(local, (sink, source) => harness.current.deps(extra, { sink, source }));
    return local;
  }

  /** The user says `text` and waits until the bot answered it (a reply or a notice containing `answer`). */
  async function ask(local: FakeDiscord, text: string, answer: string): Promise<void> {
    await say(local, text);
    await local.whenRequest(() => botMessages(local).some((m) => (m.content ?? '').includes(answer)));
    await conversation?.intake.idle();
  }

  it('answers a message past turns_per_hour with a notice naming the limit and when it resets, asks the model nothing, and answers again once the hour slid by', async () => {
    const { fake, store } = harness.current;
    const local = await start('limits:\n  per_user:\n    turns_per_hour: 2\n');
    fake.enqueue(chatText('One.'), chatText('Two.'), chatText('Three.'));
    await ask(local, 'first', 'One.');
    await store.clock.advance(10 * 60_000);
    await ask(local, 'second', 'Two.');
    const resetsAt = new Date(Date.UTC(2026, 0, 1) + HOUR).toISOString().slice(11, 19);

    await ask(local, 'third', 'your limit');
    await shown(local, `ℹ️ You have reached your limit of 2 requests per hour, so I did not start on this message. You can ask again at ${resetsAt} UTC (in 50 min).`);
    expect(fake.requests).toHaveLength(2);

    await store.clock.advance(50 * 60_000);
    await ask(local, 'fourth', 'Three.');
    expect(fake.requests).toHaveLength(3);
    expect(await store.usage.report({ period: { kind: 'today' } })).toEqual([expect.objectContaining({ turns: 3, refusals: 1 })]);
  });

  it('does not limit an admin, whose turns are still counted', async () => {
    const { fake, store } = harness.current;
    const local = await start('');
    await conversation?.close();
    conversation = await discordConversation(local, (sink, source) =>
      harness.current.deps(`permissions:\n  admins: ['${local.world.user.id}']\nlimits:\n  per_user:\n    turns_per_hour: 1\n`, { sink, source }),
    );
    fake.enqueue(chatText('One.'), chatText('Two.'));
    await ask(local, 'first', 'One.');
    await ask(local, 'second', 'Two.');
    expect(fake.requests).toHaveLength(2);
    expect(await store.usage.report({ period: { kind: 'today' }, by: 'user' })).toEqual([expect.objectContaining({ key: local.world.user.id, turns: 2, refusals: 0 })]);
  });

  it('stops an endless tool loop at per_turn.max_tokens before its next model call, keeping and telling what its calls came to', async () => {
    const { fake, target, store } = harness.current;
    const local = await start('limits:\n  per_turn:\n    max_tokens: 1000\n');
    const usage = { prompt_tokens: 350, completion_tokens: 50 };
    fake.enqueue(...Array.from({ length: 10 }, (_, index) => chatToolCalls([{ id: `c${index}`, name: 'lookup', args: `{"word":"w${index}"}` }], { usage })));
    target.reply({ status: 200, body: 'first meaning' }, { status: 200, body: 'second meaning' }, { status: 200, body: 'third meaning' });

    await ask(local, 'define every word you know', 'I stopped this request');
    await shown(
      local,
      'ℹ️ I stopped this request before asking the model again: it reached its limit of 1,000 tokens per request (1,200 spent). What it did is kept; ask again to go on from here.\n' +
        '`lookup` returned: first meaning\n`lookup` returned: second meaning\n`lookup` returned: third meaning',
    );
    expect(fake.requests).toHaveLength(3);
    expect(target.requests).toHaveLength(3);
    expect(await store.usage.report({ period: { kind: 'today' } })).toEqual([expect.objectContaining({ turns: 1, calls: 3, inputTokens: 1050, outputTokens: 150 })]);

    fake.reset();
    fake.enqueue(chatText('Going on.'));
    await ask(local, 'go on', 'Going on.');
    expect(JSON.stringify(fake.requests[0]?.body)).toContain('What it did is kept');
  });
});
