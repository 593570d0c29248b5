import { once } from 'node:events';
import {
  Client,
  DiscordAPIError,
  Events,
  GatewayIntentBits,
  Partials,
  type Interaction,
  type Message,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeDiscord } from '../support/fake_discord/server.js';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startFake(token?: string): Promise<FakeDiscord> {
  const fake = await FakeDiscord.start(token === undefined ? {} : { token });
  cleanups.push(() => fake.close());
  return fake;
}

function newClient(fake: FakeDiscord): Client {
  const client = new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.DirectMessages,
    ],
    partials: [Partials.Channel],
    rest: { api: fake.restUrl },
  });
  cleanups.push(() => client.destroy());
  return client;
}

/** Logs in and waits until discord.js has the guild, so events are no longer queued. */
async function loggedIn(): Promise<{ fake: FakeDiscord; client: Client<true> }> {
  const fake = await startFake();
  const client = newClient(fake);
  const ready = once(client, Events.ClientReady);
  await client.login(FakeDiscord.TOKEN);
  await ready;
  if (!client.isReady()) throw new Error('client is not ready');
  return { fake, client };
}

async function receive(fake: FakeDiscord, client: Client, content: string): Promise<Message> {
  const received = once(client, Events.MessageCreate) as Promise<[Message]>;
  await fake.dispatchMessage({ channelId: fake.world.channelId, authorId: fake.world.user.id, content, mentionsBot: true });
  const [message] = await received;
  return message;
}

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
    const channel = client.channels.cache.get(fake.world.channelId);
    if (channel?.isSendable() !== true) throw new Error('channel is not sendable');

    await channel.sendTyping();
    const commands = await client.application.commands.set([{ name: 'ask', description: 'Ask the bot' }], fake.world.guildId);

    expect(commands.first()?.name).toBe('ask');
    const error: unknown = await client.rest.get('/nowhere').catch((e: unknown) => e);
    expect((error as DiscordAPIError).status).toBe(404);
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([
        `POST /channels/${fake.world.channelId}/typing`,
        `PUT /applications/${fake.bot.id}/guilds/${fake.world.guildId}/commands`,
        'GET /nowhere',
      ]),
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
    const fake = await startFake('the-real-token');
    const client = newClient(fake);

    await expect(client.login('a-wrong-token')).rejects.toThrow('Authentication failed');
    expect(fake.identifies).toEqual([expect.objectContaining({ token: 'a-wrong-token' })]);
  });
});
