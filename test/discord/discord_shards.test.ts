import { afterEach, describe, expect, it } from 'vitest';
import type { Inbound, ReplySink, Transport } from '../../src/conversation/transport.js';
import { Conditions } from '../support/conditions.js';
import { localDiscordTransport } from '../support/discord_conversation.js';
import { FakeDiscord } from '../support/fake_discord/server.js';

/** A Discord id no channel has: Discord answers Unknown Channel for it. */
const GONE_CHANNEL = '1300000000000000405';

/** A connected transport and the texts of the messages it took, in order. */
interface Listening {
  readonly transport: Transport;
  readonly sink: ReplySink;
  readonly texts: string[];
  /** Resolves once it took a message reading `text`. */
  took(text: string): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startDiscord(options: { guilds: number; shards?: number }): Promise<FakeDiscord> {
  const discord = await FakeDiscord.start(options);
  cleanups.push(() => discord.close());
  return discord;
}

/** The Discord transport running `shards` on `discord`, connected and listening. */
async function listening(discord: FakeDiscord, shards: unknown): Promise<Listening> {
  const transport = localDiscordTransport(discord, { shards });
  const { sink } = await transport.connect();
  cleanups.push(() => transport.close());
  const texts: string[] = [];
  const conditions = new Conditions();
  void transport.listen((inbound: Inbound) => {
    texts.push(inbound.origin.text);
    conditions.changed();
  });
  return { transport, sink, texts, took: (text) => conditions.when(() => texts.includes(text)) };
}

/** A member mentions the bot in `channelId` (or writes to it in the direct-message channel). */
async function say(discord: FakeDiscord, channelId: string, text: string): Promise<void> {
  const { world } = discord;
  const direct = channelId === world.dmChannelId;
  await discord.dispatchMessage({ channelId, authorId: world.user.id, content: direct ? text : `<@${world.bot.id}> ${text}`, mentionsBot: !direct });
}

describe('Discord shards split across processes', () => {
  it('gives each process only the messages of its shards’ servers, direct messages to shard 0, and says which channels it serves', async () => {
    const discord = await startDiscord({ guilds: 2 });
    const first = discord.channelOnShard(0, 2);
    const second = discord.channelOnShard(1, 2);
    const direct = discord.world.dmChannelId;
    const shard0 = await listening(discord, { ids: [0], count: 2 });
    const shard1 = await listening(discord, { ids: [1], count: 2 });
    expect(discord.identifies.map((identify) => identify.shard)).toEqual([
      [0, 2],
      [1, 2],
    ]);

    const served = (at: Listening): Promise<boolean[]> => Promise.all([first, second, direct, GONE_CHANNEL].map((channel) => at.transport.serves(channel)));
    expect(await served(shard0)).toEqual([true, false, true, true]);
    expect(await served(shard1)).toEqual([false, true, false, false]);

    await say(discord, first, 'to the server on shard 0');
    await say(discord, second, 'to the server on shard 1');
    await say(discord, direct, 'directly');
    await say(discord, first, 'last');
    await say(discord, second, 'last');
    await Promise.all([shard0.took('last'), shard1.took('last')]);
    expect(shard0.texts.toSorted()).toEqual(['directly', 'last', 'to the server on shard 0']);
    expect(shard1.texts.toSorted()).toEqual(['last', 'to the server on shard 1']);
  });

  it('runs every shard Discord recommends in one process with `auto`, and serves every channel', async () => {
    const discord = await startDiscord({ guilds: 2, shards: 2 });
    const first = discord.channelOnShard(0, 2);
    const second = discord.channelOnShard(1, 2);
    const all = await listening(discord, 'auto');
    expect(discord.identifies.map((identify) => identify.shard).toSorted()).toEqual([
      [0, 2],
      [1, 2],
    ]);
    expect(await Promise.all([first, second, discord.world.dmChannelId].map((channel) => all.transport.serves(channel)))).toEqual([true, true, true]);

    await say(discord, first, 'one');
    await say(discord, second, 'two');
    await say(discord, discord.world.dmChannelId, 'three');
    await Promise.all(['one', 'two', 'three'].map((text) => all.took(text)));
    expect(all.texts.toSorted()).toEqual(['one', 'three', 'two']);
  });

  it('posts from any shard to a channel of a server another shard owns, as a process that reclaimed a turn tells its channel', async () => {
    const discord = await startDiscord({ guilds: 2 });
    const first = discord.channelOnShard(0, 2);
    const shard1 = await listening(discord, { ids: [1], count: 2 });
    const request = `<@${discord.world.bot.id}> write it`;
    const asked = await discord.dispatchMessage({ channelId: first, authorId: discord.world.user.id, content: request, mentionsBot: true });
    const text = 'The bot restarted while working on a request; its work is saved. Type `resume` to continue it.';
    shard1.sink.post({ type: 'message', channelId: first, inReplyTo: asked, turn: 't-1', kind: 'notice', notice: 'interrupted', text });
    await discord.whenRequest((r) => r.method === 'POST' && r.path === `/channels/${first}/messages` && r.status === 200);
    expect(discord.messagesIn(first).map((message) => [message.content, message.message_reference?.message_id])).toEqual([
      [request, undefined],
      [expect.stringContaining(text), asked],
    ]);
  });

  it('refuses a second process that runs a shard already connected: its start fails once, naming the shard, and the first keeps it', async () => {
    const discord = await startDiscord({ guilds: 2 });
    const second = discord.channelOnShard(1, 2);
    const running = await listening(discord, { ids: [1], count: 2 });

    const again = localDiscordTransport(discord, { shards: { ids: [1], count: 2 } });
    cleanups.push(() => again.close());
    await expect(again.connect()).rejects.toThrow(
      `could not log in to Discord with discord.token at ${discord.restUrl}: Discord refused shard 1 of 2 (close ` +
        `code 4010, invalid shard): check discord.shards, and that no other process runs that shard`,
    );
    expect(discord.identifies.map((identify) => identify.shard)).toEqual([
      [1, 2],
      [1, 2],
    ]);

    await say(discord, second, 'still here');
    await running.took('still here');
    expect(discord.identifies).toHaveLength(2);
  });
});
