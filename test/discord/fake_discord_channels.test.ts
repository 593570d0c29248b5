import { once } from 'node:events';
import { ChannelType, Events, type Interaction, type Message } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFakeClients, loggedIn, startFake } from '../support/fake_discord/clients.js';
import { guildShard } from '../support/fake_discord/server.js';

afterEach(closeFakeClients);

describe('FakeDiscord with many text channels and guilds', () => {
  it('shows every text channel in the guild, answers for each, and carries the guild on messages in any of them', async () => {
    const { fake, client } = await loggedIn({}, { channels: 3 });
    const { channelIds, guildId, user } = fake.world;
    expect(channelIds).toHaveLength(3);
    expect(channelIds[0]).toBe(fake.world.channelId);
    const guild = client.guilds.cache.get(guildId);
    expect(channelIds.map((id) => guild?.channels.cache.get(id)?.name)).toEqual(['general', 'general-2', 'general-3']);

    const third = channelIds[2] ?? '';
    const fetched = await client.channels.fetch(third, { force: true });
    expect(fetched).toMatchObject({ id: third, guildId, name: 'general-3' });
    const received = once(client, Events.MessageCreate) as Promise<[Message]>;
    await fake.dispatchMessage({ channelId: third, authorId: user.id, content: 'hello', mentionsBot: true });
    const [message] = await received;
    expect(message.channelId).toBe(third);
    expect(message.guildId).toBe(guildId);
    expect(message.member?.roles.cache.has(fake.world.roleId)).toBe(true);

    const reply = await message.reply('hi');
    expect(reply.guildId).toBe(guildId);
    expect(fake.messagesIn(third).map((m) => m.content)).toEqual(['hello', 'hi']);
    expect(fake.messagesIn(fake.world.channelId)).toEqual([]);
  });

  it('keeps the ids of the one-channel world whatever the number of channels', async () => {
    const one = await startFake();
    const many = await startFake({ channels: 30 });
    const { channelIds, guildChannels, ...rest } = many.world;
    expect(one.world).toEqual({ ...rest, channelIds: [one.world.channelId], guildChannels: [guildChannels[0]] });
    expect(new Set([...channelIds, many.world.dmChannelId]).size).toBe(31);
  });

  it('keeps the ids of the one-guild world whatever the number of guilds, and puts each further guild on the next shard', async () => {
    const one = await startFake({ channels: 2 });
    const three = await startFake({ channels: 2, guilds: 3 });
    const { guilds, channelIds, guildChannels, ...rest } = three.world;
    expect(one.world).toEqual({ ...rest, guilds: guilds.slice(0, 1), channelIds: channelIds.slice(0, 2), guildChannels: guildChannels.slice(0, 2) });
    expect(guilds.map((guild) => guildShard(guild.id, 3))).toEqual([0, 1, 2].map((step) => (guildShard(one.world.guildId, 3) + step) % 3));
    expect(guildChannels.map((channel) => [channel.guildId, channel.name])).toEqual(
      guilds.flatMap((guild) => [
        [guild.id, 'general'],
        [guild.id, 'general-2'],
      ]),
    );
  });

  it('has a category with a text channel filed under it and a thread of the first channel, with messages and slash commands in the thread', async () => {
    const { fake, client } = await loggedIn();
    const { world } = fake;
    const guild = client.guilds.cache.get(world.guildId);
    const category = guild?.channels.cache.get(world.categoryId);
    expect(category).toMatchObject({ type: ChannelType.GuildCategory, name: 'Support' });
    expect(guild?.channels.cache.get(world.supportChannelId)).toMatchObject({ type: ChannelType.GuildText, name: 'support', parentId: world.categoryId });
    expect(client.channels.cache.get(world.threadId)).toMatchObject({ type: ChannelType.PublicThread, name: 'general-thread', parentId: world.channelId, guildId: world.guildId });
    expect(await client.channels.fetch(world.supportChannelId, { force: true })).toMatchObject({ parentId: world.categoryId });
    expect(await client.channels.fetch(world.threadId, { force: true })).toMatchObject({ parentId: world.channelId });

    const received = once(client, Events.MessageCreate) as Promise<[Message]>;
    await fake.dispatchMessage({ channelId: world.threadId, authorId: world.user.id, content: 'in the thread', mentionsBot: true });
    const [message] = await received;
    expect(message.channel.isThread() && message.channel.parentId).toBe(world.channelId);
    expect(message.guildId).toBe(world.guildId);
    await message.reply('answered');
    expect(fake.messagesIn(world.threadId).map((m) => m.content)).toEqual(['in the thread', 'answered']);

    const interacted = once(client, Events.InteractionCreate) as Promise<[Interaction]>;
    await fake.dispatchInteraction({ name: 'status', channelId: world.threadId });
    const [interaction] = await interacted;
    expect(interaction.channelId).toBe(world.threadId);
    expect(interaction.channel?.isThread()).toBe(true);
  });
});
