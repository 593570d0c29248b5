import { once } from 'node:events';
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  ComponentType,
  DiscordAPIError,
  Events,
  InteractionResponseType,
  LabelBuilder,
  MessageFlags,
  ModalBuilder,
  Routes,
  TextInputBuilder,
  TextInputStyle,
  type ButtonInteraction,
  type Client,
  type Interaction,
  type Message,
  type ModalSubmitInteraction,
  type SendableChannels,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakeClients, guildChannel, loggedIn, newClient, startFake } from '../support/fake_discord/clients.js';
import { FakeDiscord, type ButtonPress, type DispatchedInteraction } from '../support/fake_discord/server.js';

afterEach(closeFakeClients);

const QUESTION = 'May I run `rm -rf build/`?';
const OTHER_MEMBER = '1300000000000000001';

function approvalRow(disabled = false): ActionRowBuilder<ButtonBuilder> {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder().setCustomId('approve').setLabel('Approve').setStyle(ButtonStyle.Success).setDisabled(disabled),
    new ButtonBuilder().setCustomId('deny').setLabel('Deny').setStyle(ButtonStyle.Danger).setDisabled(disabled),
  );
}

/** The bot's approval request with Approve and Deny buttons. */
function askApproval(channel: SendableChannels): Promise<Message> {
  return channel.send({ content: QUESTION, components: [approvalRow()] });
}

/** Presses a button and resolves with the interaction as `client` receives it. */
async function press(fake: FakeDiscord, client: Client, button: ButtonPress): Promise<{ sent: DispatchedInteraction; interaction: ButtonInteraction }> {
  const received = once(client, Events.InteractionCreate) as Promise<[Interaction]>;
  const sent = fake.pressButton(button);
  const [interaction] = await received;
  if (!interaction.isButton()) throw new Error('not a button press');
  return { sent, interaction };
}

/** Submits the modal `opener` showed and resolves with the submission as `client` receives it. */
async function submit(fake: FakeDiscord, client: Client, opener: DispatchedInteraction, values: Record<string, string>): Promise<{ sent: DispatchedInteraction; interaction: ModalSubmitInteraction }> {
  const received = once(client, Events.InteractionCreate) as Promise<[Interaction]>;
  const sent = fake.submitModal({ opener, values });
  const [interaction] = await received;
  if (!interaction.isModalSubmit()) throw new Error('not a modal submission');
  return { sent, interaction };
}

describe('FakeDiscord message components with the real discord.js Client', () => {
  it('keeps the buttons of a bot message, serves them, keeps them through an edit that leaves them out and drops them on components: []', async () => {
    const { fake, client } = await loggedIn();
    const message = await askApproval(guildChannel(fake, client));

    const row = {
      type: ComponentType.ActionRow,
      components: [expect.objectContaining({ type: ComponentType.Button, custom_id: 'approve', label: 'Approve' }), expect.objectContaining({ custom_id: 'deny' })],
    };
    expect(fake.message(message.id)?.components).toEqual([row]);
    const fetched = await message.channel.messages.fetch({ message: message.id, force: true });
    expect(fetched.components.map((component) => component.toJSON())).toEqual([row]);

    await message.edit('Still waiting for a moderator');
    expect(fake.message(message.id)).toMatchObject({ content: 'Still waiting for a moderator', components: [row] });

    await message.edit({ components: [] });
    expect(fake.message(message.id)).toMatchObject({ content: 'Still waiting for a moderator', components: [] });
    expect((await message.channel.messages.fetch({ message: message.id, force: true })).components).toEqual([]);
  });

  it('delivers a press as a ButtonInteraction of the presser on the message, whose update edits that message and drops its buttons', async () => {
    const { fake, client } = await loggedIn();
    const { world } = fake;
    const message = await askApproval(guildChannel(fake, client));

    const { sent, interaction } = await press(fake, client, { messageId: message.id, customId: 'approve' });
    expect(interaction.customId).toBe('approve');
    expect(interaction.user.id).toBe(world.user.id);
    expect(interaction.inCachedGuild() && interaction.member.roles.cache.has(world.roleId)).toBe(true);
    expect(interaction.channelId).toBe(world.channelId);
    expect(interaction.message).toMatchObject({ id: message.id, content: QUESTION });
    expect(interaction.component).toMatchObject({ customId: 'approve', label: 'Approve' });

    const answered = fake.whenInteractionAnswer(sent.id);
    const response = await interaction.update({ content: 'Approved by alice', components: [], withResponse: true });

    expect(response.resource?.message).toMatchObject({ id: message.id, content: 'Approved by alice' });
    expect(await answered).toEqual({ type: 'update', ephemeral: false, content: 'Approved by alice', components: [] });
    expect(fake.messagesIn(world.channelId)).toEqual([expect.objectContaining({ id: message.id, content: 'Approved by alice', components: [], edited_timestamp: expect.any(String) as string })]);
    expect(() => fake.pressButton({ messageId: message.id, customId: 'approve' })).toThrow(`message ${message.id} has no button approve`);
  });

  it('records an ephemeral reply and follow-up to a press without posting anything in the channel', async () => {
    const { fake, client } = await loggedIn();
    const message = await askApproval(guildChannel(fake, client));
    const { sent, interaction } = await press(fake, client, { messageId: message.id, customId: 'approve' });

    await interaction.reply({ content: 'Only moderators may approve.', flags: MessageFlags.Ephemeral });
    const followUp = await interaction.followUp({ content: 'Ask in #support.', flags: MessageFlags.Ephemeral });

    expect(followUp.flags.has(MessageFlags.Ephemeral)).toBe(true);
    expect(fake.interactionAnswers(sent.id)).toEqual([
      { type: 'reply', ephemeral: true, content: 'Only moderators may approve.', components: undefined },
      { type: 'followup', ephemeral: true, content: 'Ask in #support.', components: undefined },
    ]);
    expect(fake.messagesIn(fake.world.channelId)).toEqual([expect.objectContaining({ id: message.id, content: QUESTION, components: [expect.anything()] })]);
  });

  it('shows a modal from a press and delivers its submission, whose update edits the button’s message', async () => {
    const { fake, client } = await loggedIn();
    const message = await askApproval(guildChannel(fake, client));
    const { sent, interaction } = await press(fake, client, { messageId: message.id, customId: 'deny' });

    const note = new TextInputBuilder().setCustomId('note').setStyle(TextInputStyle.Paragraph).setRequired(false);
    await interaction.showModal(new ModalBuilder().setCustomId('deny-note').setTitle('Deny the tool call').addLabelComponents(new LabelBuilder().setLabel('Why?').setTextInputComponent(note)));
    const modal = await fake.whenModal(sent);
    expect(modal).toMatchObject({ custom_id: 'deny-note', title: 'Deny the tool call', components: [{ type: ComponentType.Label, component: { custom_id: 'note' } }] });
    expect(fake.interactionAnswers(sent.id).map((answer) => answer.type)).toEqual(['modal']);

    const submission = await submit(fake, client, sent, { note: 'too risky' });
    const { interaction: submitted } = submission;
    expect(submitted.customId).toBe('deny-note');
    expect(submitted.fields.getTextInputValue('note')).toBe('too risky');
    expect(submitted.user.id).toBe(fake.world.user.id);
    expect(submitted.message?.id).toBe(message.id);
    if (!submitted.isFromMessage()) throw new Error('the submission carries no message');
    await submitted.update({ content: 'Denied: too risky', components: [] });

    expect(fake.message(message.id)).toMatchObject({ content: 'Denied: too risky', components: [] });
    expect(fake.interactionAnswers(submission.sent.id)).toEqual([{ type: 'update', ephemeral: false, content: 'Denied: too risky', components: [] }]);
  });

  it('submits a modal of action rows only with its required inputs, and a deferred update then an edit of @original edits the button’s message', async () => {
    const { fake, client } = await loggedIn();
    const message = await askApproval(guildChannel(fake, client));
    const { sent, interaction } = await press(fake, client, { messageId: message.id, customId: 'deny' });
    await interaction.showModal({
      customId: 'deny-note',
      title: 'Deny',
      components: [{ type: ComponentType.ActionRow, components: [{ type: ComponentType.TextInput, customId: 'note', label: 'Why?', style: TextInputStyle.Short, required: true }] }],
    });
    await fake.whenModal(sent);

    expect(() => fake.submitModal({ opener: sent, values: {} })).toThrow('without a value for note');
    expect(() => fake.submitModal({ opener: sent, values: { note: 'no', reason: 'no' } })).toThrow('has no text input reason');
    const { sent: submission, interaction: submitted } = await submit(fake, client, sent, { note: 'not now' });
    expect(submitted.fields.getTextInputValue('note')).toBe('not now');
    if (!submitted.isFromMessage()) throw new Error('the submission carries no message');
    await submitted.deferUpdate();
    const edited = await submitted.editReply({ content: 'Denied: not now', components: [] });

    expect(edited.id).toBe(message.id);
    expect(fake.messagesIn(fake.world.channelId)).toEqual([expect.objectContaining({ id: message.id, content: 'Denied: not now', components: [] })]);
    expect(fake.interactionAnswers(submission.id).map((answer) => answer.type)).toEqual(['deferred_update', 'edit_original']);
    expect(() => fake.submitModal({ opener: submission, values: {} })).toThrow('was not answered with a modal');
  });

  it("refuses a second acknowledgement with Discord's 40060 and keeps the first", async () => {
    const { fake, client } = await loggedIn();
    const message = await askApproval(guildChannel(fake, client));
    const { sent, interaction } = await press(fake, client, { messageId: message.id, customId: 'approve' });
    await interaction.deferUpdate();

    const late: unknown = await client.rest
      .post(Routes.interactionCallback(sent.id, sent.token), { body: { type: InteractionResponseType.UpdateMessage, data: { content: 'Approved twice' } }, auth: false })
      .catch((e: unknown) => e);

    expect(late).toBeInstanceOf(DiscordAPIError);
    expect(late).toMatchObject({ status: 400, code: 40060 });
    expect(fake.message(message.id)?.content).toBe(QUESTION);
    expect(fake.interactionAnswers(sent.id)).toEqual([{ type: 'deferred_update', ephemeral: false, content: undefined, components: undefined }]);
  });

  it('carries another presser without roles unless told, and refuses a press of a button the message lacks or has disabled', async () => {
    const { fake, client } = await loggedIn();
    const { world } = fake;
    const message = await askApproval(guildChannel(fake, client));

    const other = await press(fake, client, { messageId: message.id, customId: 'deny', userId: OTHER_MEMBER });
    expect(other.interaction.user.id).toBe(OTHER_MEMBER);
    expect(other.interaction.inCachedGuild() && other.interaction.member.roles.cache.has(world.roleId)).toBe(false);
    const helper = await press(fake, client, { messageId: message.id, customId: 'deny', userId: OTHER_MEMBER, roles: [world.roleId] });
    expect(helper.interaction.inCachedGuild() && helper.interaction.member.roles.cache.has(world.roleId)).toBe(true);

    expect(() => fake.pressButton({ messageId: message.id, customId: 'always-allow' })).toThrow(`message ${message.id} has no button always-allow`);
    await message.edit({ components: [approvalRow(true)] });
    expect(() => fake.pressButton({ messageId: message.id, customId: 'approve' })).toThrow('has no button approve');
  });

  it("sends a press to the shard of the message's guild, and a press in the DM channel to shard 0 without a guild", async () => {
    const fake = await startFake({ guilds: 2 });
    const [first, second] = [0, 1].map((id) => newClient(fake, {}, { shards: [id], shardCount: 2 }));
    if (first === undefined || second === undefined) throw new Error('two clients');
    for (const client of [first, second]) {
      const ready = once(client, Events.ClientReady);
      await client.login(FakeDiscord.TOKEN);
      await ready;
    }
    const toFirst: Interaction[] = [];
    first.on(Events.InteractionCreate, (interaction) => toFirst.push(interaction));
    const channelId = fake.channelOnShard(1, 2);
    const channel = second.channels.cache.get(channelId);
    if (channel?.isSendable() !== true) throw new Error('the second shard cannot post there');
    const inGuild = await askApproval(channel);

    const pressed = await press(fake, second, { messageId: inGuild.id, customId: 'approve' });
    expect(pressed.interaction.guildId).toBe(fake.world.guildChannels.find((c) => c.id === channelId)?.guildId);
    const dm = await askApproval(await first.users.createDM(fake.world.user.id));
    const inDm = await press(fake, first, { messageId: dm.id, customId: 'deny' });

    expect(inDm.interaction.guildId).toBeNull();
    expect(inDm.interaction.member).toBeNull();
    expect(inDm.interaction.user.id).toBe(fake.world.user.id);
    expect(toFirst).toEqual([inDm.interaction]);
  });
});
