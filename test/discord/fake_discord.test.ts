import { once } from 'node:events';
import { ChannelType, DiscordAPIError, Events, MessageType, type Interaction, type Message, type PartialMessage } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakeClients, guildChannel, loggedIn, newClient, receive, startFake } from '../support/fake_discord/clients.js';
import { FakeDiscord } from '../support/fake_discord/server.js';

afterEach(closeFakeClients);

describe('FakeDiscord with the real discord.js Client', () => {
  it('logs in as the fake bot and sees its guild', async () => {
    const { fake, client } = await loggedIn();

    expect(client.user.id).toBe(fake.bot.id);
    expect(fake.identifies).toEqual([expect.objectContaining({ token: FakeDiscord.TOKEN })]);
    const guild = client.guilds.cache.get(fake.world.guildId);
    expect(guild?.name).toBe(fake.world.guildName);
    expect(guild?.channels.cache.get(fake.world.channelId)?.isTextBased()).toBe(true);
    expect(guild?.members.cache.get(fake.world.user.id)?.roles.cache.has(fake.world.roleId)).toBe(true);
  });

  it('delivers a dispatched message as messageCreate', async () => {
    const { fake, client } = await loggedIn();

    const message = await receive(fake, client, 'hello bot');

    expect(message.content).toBe('hello bot');
    expect(message.author.id).toBe(fake.world.user.id);
    expect(message.author.bot).toBe(false);
    expect(message.channelId).toBe(fake.world.channelId);
    expect(message.guildId).toBe(fake.world.guildId);
    expect(message.mentions.users.has(fake.bot.id)).toBe(true);
    expect(message.member?.roles.cache.has(fake.world.roleId)).toBe(true);
  });

  it('records a reply as a POST with message_reference', async () => {
    const { fake, client } = await loggedIn();
    const message = await receive(fake, client, 'ping');

    const reply = await message.reply('hi');

    const request = await fake.whenRequest((r) => r.method === 'POST' && r.path === `/channels/${fake.world.channelId}/messages`);
    expect(request.body).toMatchObject({ content: 'hi', message_reference: { message_id: message.id } });
    expect(reply.author.id).toBe(fake.bot.id);
    expect(reply.content).toBe('hi');
    expect(fake.message(reply.id)?.content).toBe('hi');
  });

  it('serves stored messages over REST and 10008 for deleted ones', async () => {
    const { fake, client } = await loggedIn();
    const message = await receive(fake, client, 'original');
    fake.editUserMessage(message.id, 'edited');

    const fetched = await message.channel.messages.fetch({ message: message.id, force: true });
    expect(fetched.content).toBe('edited');

    fake.deleteUserMessage(message.id);
    const error: unknown = await message.channel.messages.fetch({ message: message.id, force: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect((error as DiscordAPIError).code).toBe(10008);
    expect(fake.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/messages/${message.id}`))).toHaveLength(2);
  });

  it('answers typing, command registration and unknown routes', async () => {
    const { fake, client } = await loggedIn();
    const channel = guildChannel(fake, client);

    await channel.sendTyping();
    const commands = await client.application.commands.set([{ name: 'ask', description: 'Ask the bot' }], fake.world.guildId);

    expect(commands.first()?.name).toBe('ask');
    const error: unknown = await client.rest.get('/nowhere').catch((e: unknown) => e);
    expect((error as DiscordAPIError).status).toBe(404);
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([`POST /channels/${fake.world.channelId}/typing`, `PUT /applications/${fake.bot.id}/guilds/${fake.world.guildId}/commands`, 'GET /nowhere']),
    );
  });

  it('delivers a slash command and records its reply and edit', async () => {
    const { fake, client } = await loggedIn();
    const received = once(client, Events.InteractionCreate) as Promise<[Interaction]>;

    const { id, token } = await fake.dispatchInteraction({ name: 'ask', options: [{ name: 'question', type: 3, value: 'why?' }] });
    const [interaction] = await received;
    if (!interaction.isChatInputCommand()) throw new Error('not a chat input command');
    expect(interaction.commandName).toBe('ask');
    expect(interaction.options.getString('question')).toBe('why?');
    expect(interaction.user.id).toBe(fake.world.user.id);
    expect(interaction.channelId).toBe(fake.world.channelId);

    await interaction.deferReply();
    const edited = await interaction.editReply('because');

    expect(edited.content).toBe('because');
    const callback = await fake.whenRequest((r) => r.method === 'POST' && r.path === `/interactions/${id}/${token}/callback`);
    expect(callback.body).toMatchObject({ type: 5 });
    const edit = await fake.whenRequest((r) => r.method === 'PATCH' && r.path === `/webhooks/${fake.bot.id}/${token}/messages/@original`);
    expect(edit.body).toMatchObject({ content: 'because' });
  });

  it('rejects login with a wrong token', async () => {
    const fake = await startFake({ token: 'the-real-token' });
    const client = newClient(fake);

    await expect(client.login('a-wrong-token')).rejects.toThrow('Authentication failed');
    expect(fake.identifies).toEqual([expect.objectContaining({ token: 'a-wrong-token' })]);
  });

  it('sends MESSAGE_UPDATE for an edited user message and MESSAGE_DELETE for a deleted one', async () => {
    const { fake, client } = await loggedIn();
    const message = await receive(fake, client, 'original');

    const updated = once(client, Events.MessageUpdate) as Promise<[Message | PartialMessage, Message]>;
    fake.editUserMessage(message.id, 'edited');
    const [before, after] = await updated;
    expect(before.content).toBe('original');
    expect(after.id).toBe(message.id);
    expect(after.content).toBe('edited');
    expect(after.guildId).toBe(fake.world.guildId);
    expect(before.editedTimestamp).toBeNull();
    expect(after.editedTimestamp).not.toBeNull();

    const deleted = once(client, Events.MessageDelete) as Promise<[Message | PartialMessage]>;
    fake.deleteUserMessage(message.id);
    const [gone] = await deleted;
    expect(gone.id).toBe(message.id);
    expect(gone.content).toBe('edited');
    expect(message.channel.messages.cache.has(message.id)).toBe(false);
    expect(fake.message(message.id)).toBeUndefined();
  });

  it('delivers a direct message without a guild and lets the bot answer in the DM channel', async () => {
    const { fake, client } = await loggedIn();
    const { dmChannelId, user } = fake.world;
    const received = once(client, Events.MessageCreate) as Promise<[Message]>;

    const id = await fake.dispatchMessage({ channelId: dmChannelId, authorId: user.id, content: 'psst' });
    const [message] = await received;
    expect(message.guildId).toBeNull();
    expect(message.member).toBeNull();
    expect(message.channel.type).toBe(ChannelType.DM);
    expect(fake.message(id)).not.toHaveProperty('guild_id');
    expect(fake.message(id)).not.toHaveProperty('member');

    const channel = await client.channels.fetch(dmChannelId, { force: true });
    if (channel?.type !== ChannelType.DM) throw new Error('not a DM channel');
    expect(channel.recipientId).toBe(user.id);
    expect((await channel.messages.fetch({ message: id, force: true })).content).toBe('psst');
    const guildText = await client.channels.fetch(fake.world.channelId, { force: true });
    expect(guildText?.type).toBe(ChannelType.GuildText);

    const opened = await client.users.createDM(user.id, { force: true });
    expect(opened.id).toBe(dmChannelId);
    const sent = await opened.send('hello in private');
    expect(sent.guildId).toBeNull();
    expect(fake.message(sent.id)).toMatchObject({ channel_id: dmChannelId, content: 'hello in private', author: { id: fake.bot.id } });
    expect(fake.message(sent.id)).not.toHaveProperty('guild_id');
    expect(fake.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(
      expect.arrayContaining([`GET /channels/${dmChannelId} 200`, `GET /channels/${fake.world.channelId} 200`, `POST /users/@me/channels 200`, `POST /channels/${dmChannelId}/messages 200`]),
    );
    expect(fake.requests.find((r) => r.path === '/users/@me/channels')?.body).toEqual({ recipient_id: user.id });
  });

  it('lists a channel newest first, honouring limit, after and before, with replies typed 19', async () => {
    const { fake, client } = await loggedIn();
    const first = await receive(fake, client, 'one');
    const second = await receive(fake, client, 'two');
    const third = await receive(fake, client, 'three');
    const reply = await second.reply('re: two');
    const ids = async (options: { limit?: number; after?: string; before?: string }): Promise<string[]> => [...(await third.channel.messages.fetch(options)).keys()];

    expect(await ids({})).toEqual([reply.id, third.id, second.id, first.id]);
    expect(await ids({ limit: 2 })).toEqual([reply.id, third.id]);
    expect(await ids({ after: first.id, limit: 2 })).toEqual([third.id, second.id]);
    expect(await ids({ before: third.id })).toEqual([second.id, first.id]);
    const listed = (await third.channel.messages.fetch({ limit: 1 })).first();
    expect(listed?.type).toBe(MessageType.Reply);
    expect(listed?.reference).toMatchObject({ messageId: second.id, channelId: fake.world.channelId, guildId: fake.world.guildId });
    expect(fake.message(reply.id)?.message_reference).toEqual({
      type: 0,
      message_id: second.id,
      channel_id: fake.world.channelId,
      guild_id: fake.world.guildId,
    });
    const error: unknown = await third.channel.messages.fetch({ limit: 101 }).catch((e: unknown) => e);
    expect((error as DiscordAPIError).code).toBe(50035);
  });

  it("takes content of exactly 2,000 characters and refuses 2,001 with Discord's 400, on a post and on an edit, changing nothing", async () => {
    const { fake, client } = await loggedIn();
    const channel = guildChannel(fake, client);
    const tooLong = {
      code: 50035,
      errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } },
      message: 'Invalid Form Body',
    };
    const full = 'x'.repeat(2000);
    const sent = await channel.send(full);
    expect(fake.message(sent.id)?.content).toBe(full);

    const refusedPost: unknown = await channel.send(`${full}y`).catch((e: unknown) => e);
    expect(refusedPost).toBeInstanceOf(DiscordAPIError);
    expect((refusedPost as DiscordAPIError).status).toBe(400);
    expect((refusedPost as DiscordAPIError).rawError).toEqual(tooLong);
    const refusedEdit: unknown = await sent.edit(`${full}y`).catch((e: unknown) => e);
    expect((refusedEdit as DiscordAPIError).status).toBe(400);
    expect((refusedEdit as DiscordAPIError).rawError).toEqual(tooLong);
    expect(fake.messagesIn(fake.world.channelId).map((m) => m.content)).toEqual([full]);

    await sent.edit('y'.repeat(2000));
    expect(fake.message(sent.id)?.content).toBe('y'.repeat(2000));
    // Discord counts characters, not UTF-16 units: 2,000 emoji fit.
    const emoji = await channel.send('🥛'.repeat(2000));
    expect(fake.message(emoji.id)?.content).toBe('🥛'.repeat(2000));
    expect(fake.requests.filter((r) => r.path.startsWith(`/channels/${fake.world.channelId}/messages`)).map((r) => `${r.method} ${r.status}`)).toEqual([
      'POST 200',
      'POST 400',
      'PATCH 400',
      'PATCH 200',
      'POST 200',
    ]);
  });

  it("serves a dispatched message's attachments over HTTP with their bytes and type", async () => {
    const { fake, client } = await loggedIn();
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAEUlEQVR4nGP4z8DwH4YZkDkAm34L9XKwuTwAAAAASUVORK5CYII=', 'base64');
    const notes = Buffer.from('milk is a drink\n', 'utf8');
    const received = once(client, Events.MessageCreate) as Promise<[Message]>;

    await fake.dispatchMessage({
      channelId: fake.world.channelId,
      authorId: fake.world.user.id,
      content: 'see attached',
      attachments: [
        { filename: 'red dot.png', contentType: 'image/png', data: png },
        { filename: 'notes.txt', contentType: 'text/plain; charset=utf-8', data: notes },
      ],
    });
    const [message] = await received;

    const [image, text] = [...message.attachments.values()];
    expect(image).toMatchObject({ name: 'red dot.png', contentType: 'image/png', size: png.length, width: 3, height: 2 });
    expect(text).toMatchObject({ name: 'notes.txt', contentType: 'text/plain; charset=utf-8', size: notes.length, width: null });
    for (const [attachment, bytes] of [
      [image, png],
      [text, notes],
    ] as const) {
      if (attachment === undefined) throw new Error('missing attachment');
      expect(attachment.url.startsWith(`${fake.restUrl.replace(/\/api$/, '')}/attachments/`)).toBe(true);
      const response = await fetch(attachment.url);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(attachment.contentType);
      expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
    }
    expect(fake.requests.filter((r) => r.path.startsWith('/attachments/')).map((r) => r.status)).toEqual([200, 200]);
  });
});
