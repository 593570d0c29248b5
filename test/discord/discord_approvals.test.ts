import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { botMessages, say, shown } from '../support/discord_bot.js';
import { discordConversation, type DiscordConversation } from '../support/discord_conversation.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import type { MessageJson } from '../support/fake_discord/server.js';
import { FakeDiscord } from '../support/fake_discord/server.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';

/** Writes wait for approval; `bob` is an admin, anyone else only the requester. */
const APPROVALS = `  approval_defaults:\n    write: required\npermissions:\n  admins: ['900']\n`;

describe('approval before a write, on the local Discord', () => {
  const harness = useConversationHarness();
  let discord: FakeDiscord;
  let conversation: DiscordConversation | undefined;

  beforeEach(async () => {
    discord = await FakeDiscord.start();
    conversation = await discordConversation(discord, (sink, source) => harness.current.deps(APPROVALS, { sink, source }));
  });
  afterEach(async () => {
    await conversation?.close();
    conversation = undefined;
    await discord.close();
  });

  /** Resolves with the bot's message that asks for an approval, once posted. */
  async function request(): Promise<MessageJson> {
    const posted = await discord.whenRequest((r) => r.method === 'POST' && Array.isArray((r.body as { components?: unknown[] } | undefined)?.components));
    const id = (posted.body as { nonce?: string }).nonce;
    const message = discord.messagesIn(discord.world.channelId).find((m) => m.nonce === id);
    if (message === undefined) throw new Error('the request was not stored');
    return message;
  }

  /** Resolves once the bot answered message `messageId` with `content`. */
  async function answered(messageId: string, content: string): Promise<void> {
    await shown(discord, content);
    expect(botMessages(discord).find((m) => m.content === content)?.message_reference?.message_id).toBe(messageId);
  }

  /** The custom id of the request's button labelled `label`. */
  function button(message: MessageJson, label: string): string {
    const rows = (discord.message(message.id)?.components ?? []) as { components: { label?: string; custom_id?: string }[] }[];
    const found = rows.flatMap((row) => row.components).find((component) => component.label === label)?.custom_id;
    if (found === undefined) throw new Error(`no ${label} button`);
    return found;
  }

  it('asks with the call and its arguments; Approve runs the write once and the reply follows', async () => {
    const { fake, target, store } = harness.current;
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"printer on fire"}' }]), chatText('I saved the note.'));
    const asked = await say(discord, 'note that the printer is on fire');
    const ask = await request();

    expect(ask.content).toContain('`save_note` (write) wants to run');
    expect(ask.content).toContain('```json\n{\n  "text": "printer on fire"\n}\n```');
    expect(ask.message_reference?.message_id).toBe(asked);
    expect(ask.content.split('\n').at(-1)).toBe('-# If Discord says the interaction failed, the bot was away for a moment: press the button again.');
    expect(ask.components).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
    const [parked] = await store.operator.listTurns({ statuses: ['AWAITING_APPROVAL'] });
    expect(parked?.turn.leaseToken).toBeNull();

    const press = discord.pressButton({ messageId: ask.id, customId: button(ask, 'Approve') });
    const acknowledged = await discord.whenInteractionAnswer(press.id, (a) => a.type === 'edit_original');
    expect(acknowledged).toMatchObject({ ephemeral: true, content: 'ℹ️ Approved: `save_note` runs now.' });
    await answered(asked, 'I saved the note.');
    await conversation?.intake.idle();

    expect(target.requests.map((r) => r.body)).toEqual(['{"text":"printer on fire"}']);
    const settled = discord.message(ask.id);
    expect(settled?.components ?? []).toEqual([]);
    expect(settled?.content).toMatch(new RegExp(`\\*\\*Approved\\*\\* by <@${discord.world.user.id}> at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\.$`));
  });

  it('Deny with a note: the write never runs, and the model reads who denied it and why', async () => {
    const { fake, target } = harness.current;
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"delete everything"}' }]), chatText('Understood, I will not.'));
    const asked = await say(discord, 'note: delete everything');
    const ask = await request();

    const opener = discord.pressButton({ messageId: ask.id, customId: button(ask, 'Deny') });
    await discord.whenModal(opener);
    const submitted = discord.submitModal({ opener, values: { note: 'not on a Friday' } });
    await discord.whenInteractionAnswer(submitted.id, (a) => a.type === 'edit_original');
    await answered(asked, 'Understood, I will not.');

    expect(target.requests).toHaveLength(0);
    const second = (fake.requests[1]?.body as { messages: { role: string; content: unknown }[] }).messages.find((m) => m.role === 'tool');
    expect(second?.content).toBe(`Error: not run: denied by discord:${discord.world.user.id}: not on a Friday`);
    expect(discord.message(ask.id)?.content).toMatch(new RegExp(`\\*\\*Denied\\*\\* by <@${discord.world.user.id}> at .* UTC: not on a Friday\\.$`));
  });

  it('refuses a press by someone who may not answer, to them alone, and the request still waits', async () => {
    const { fake, target } = harness.current;
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"x"}' }]), chatText('Done.'));
    const asked = await say(discord, 'note x');
    const ask = await request();

    const stranger = discord.pressButton({ messageId: ask.id, customId: button(ask, 'Approve'), userId: '777' });
    expect(await discord.whenInteractionAnswer(stranger.id, (a) => a.type === 'edit_original')).toMatchObject({
      ephemeral: true,
      content: 'ℹ️ Only the person who asked, or an admin, may answer this request.',
    });
    const always = discord.pressButton({ messageId: ask.id, customId: button(ask, 'Always allow here') });
    expect((await discord.whenInteractionAnswer(always.id, (a) => a.type === 'edit_original')).content).toBe('ℹ️ Only an admin may always allow a tool in a channel.');
    expect(target.requests).toHaveLength(0);
    expect(discord.message(ask.id)?.components).toHaveLength(1);

    // Two people press Approve at once: one answer is kept, the other is told who was first.
    const presses = [discord.pressButton({ messageId: ask.id, customId: button(ask, 'Approve'), userId: '900' }), discord.pressButton({ messageId: ask.id, customId: button(ask, 'Approve') })];
    const answers = await Promise.all(presses.map(async (press) => (await discord.whenInteractionAnswer(press.id, (a) => a.type === 'edit_original')).content));
    expect(answers.filter((text) => text === 'ℹ️ Approved: `save_note` runs now.')).toHaveLength(1);
    expect(answers.filter((text) => /^ℹ️ That request was already approved by <@\d+>\.$/.test(text ?? ''))).toHaveLength(1);
    await answered(asked, 'Done.');
    await conversation?.intake.idle();
    expect(target.requests).toHaveLength(1);
  });

  it('an admin’s /deny slash command answers the only call waiting in the channel, with its note', async () => {
    const { fake, target } = harness.current;
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"x"}' }]), chatText('Left it.'));
    const asked = await say(discord, 'note x');
    const ask = await request();

    const denied = await discord.dispatchInteraction({ name: 'deny', options: [{ name: 'note', type: 3, value: 'ask the team first' }], userId: '900' });
    expect(await discord.whenInteractionAnswer(denied.id, (a) => a.type === 'edit_original')).toMatchObject({
      ephemeral: true,
      content: 'ℹ️ Denied: `save_note` will not run, and the model is told why.',
    });
    await answered(asked, 'Left it.');
    expect(target.requests).toEqual([]);
    expect(discord.message(ask.id)?.content).toMatch(/\*\*Denied\*\* by <@900> at .* UTC: ask the team first\.$/);
  });

  it('an admin’s /approve slash command names the call; a press of another bot’s button is left alone', async () => {
    const { fake, target } = harness.current;
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"x"}' }]), chatText('Saved.'));
    const asked = await say(discord, 'note x');
    await request();

    const approved = await discord.dispatchInteraction({ name: 'approve', options: [{ name: 'call', type: 3, value: 'w1' }], userId: '900' });
    expect((await discord.whenInteractionAnswer(approved.id, (a) => a.type === 'edit_original')).content).toBe('ℹ️ Approved: `save_note` runs now.');
    await answered(asked, 'Saved.');
    expect(target.requests).toHaveLength(1);
  });

  it('answers another message in the channel while a request waits', async () => {
    const { fake } = harness.current;
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"x"}' }]), chatText('What a nice day.'));
    await say(discord, 'note x');
    await request();

    const other = await say(discord, 'how is the weather?');
    await answered(other, 'What a nice day.');
  });

  it('an admin’s "Always allow here" approves the call and lets the tool run here without asking from then on', async () => {
    const { fake, target, store } = harness.current;
    fake.enqueue(
      chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"one"}' }]),
      chatText('Saved one.'),
      chatToolCalls([{ id: 'w2', name: 'save_note', args: '{"text":"two"}' }]),
      chatText('Saved two.'),
    );
    const first = await say(discord, 'note one');
    const ask = await request();
    const always = discord.pressButton({ messageId: ask.id, customId: button(ask, 'Always allow here'), userId: '900' });
    await discord.whenInteractionAnswer(always.id, (a) => a.type === 'edit_original');
    await answered(first, 'Saved one.');

    const second = await say(discord, 'note two');
    await answered(second, 'Saved two.');
    expect(target.requests.map((r) => r.body)).toEqual(['{"text":"one"}', '{"text":"two"}']);
    expect(await store.turns.approvalRules({ source: 'discord', channelId: discord.world.channelId })).toEqual([expect.objectContaining({ toolName: 'save_note', allowedBy: 'discord:900' })]);
  });
});
