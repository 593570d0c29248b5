import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/conversation/transport.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import { discordConfigYaml, type BotMessageBody } from '../support/discord_bot.js';
import { useDiscordWorld } from '../support/discord_world.js';
import type { RecordedRequest } from '../support/fake_discord/server.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { ManualClock } from '../support/manual_clock.js';
import { openTestStore, startingWith } from '../support/turn_store.js';

describe('a process running some of the bot’s shards, after a start', { timeout: 60_000 }, () => {
  const world = useDiscordWorld({ guilds: 2 });

  const openStore = (): TurnStore => openTestStore(join(world.temp.path(), 'data'), new ManualClock({ wallStart: Date.now() })).store;
  const postIn =
    (channelId: string) =>
    (r: Pick<RecordedRequest, 'method' | 'path'>): boolean =>
      r.method === 'POST' && r.path === `/channels/${channelId}/messages`;

  /** A member's message to the bot in `channelId`, sent while no bot was connected, as the conversation takes it. */
  async function sent(channelId: string, text: string): Promise<InboundMessage> {
    const { discord } = world;
    const authorId = discord.world.user.id;
    const messageId = await discord.dispatchMessage({ channelId, authorId, content: `<@${discord.world.bot.id}> ${text}`, mentionsBot: true });
    return { source: 'discord', channelId, authorId, authorRoleIds: [], messageId, text };
  }

  /** Stores `message` as a queued message the last process accepted and never started. */
  async function queued(store: TurnStore, message: InboundMessage): Promise<void> {
    await store.acceptInbound({ identity: { source: 'discord', channelId: message.channelId, messageId: message.messageId }, message });
  }

  /** Stores a finished turn for `message` whose reply `text` was never posted. */
  async function unposted(store: TurnStore, message: InboundMessage, text: string): Promise<void> {
    const admission = await store.admit({
      identity: { source: 'discord', channelId: message.channelId, messageId: message.messageId },
      requesterId: message.authorId,
      messageDigest: 'd',
      start: startingWith(message.text),
    });
    if (admission.disposition !== 'admitted') throw new Error(`not admitted: ${admission.disposition}`);
    await store.complete(admission.lease, text);
  }

  /** Starts the bot running shard `id` of 2. */
  const startShard = (id: number): void => {
    world.start(discordConfigYaml(world.discord, world.fake.baseUrl).replace('discord:\n', `discord:\n  shards: { ids: [${id}], count: 2 }\n`));
  };

  /** Resolves once the bot posted, in `channelId`, its answer to `message` and the reply `text`; returns the answer's text. */
  async function caughtUp(channelId: string, message: InboundMessage, text: string): Promise<string> {
    const { discord } = world;
    const answer = await discord.whenRequest((r) => postIn(channelId)(r) && (r.body as BotMessageBody).message_reference?.message_id === message.messageId && r.status === 200);
    await discord.whenRequest((r) => postIn(channelId)(r) && (r.body as BotMessageBody).content === text && r.status === 200);
    return (answer.body as BotMessageBody).content;
  }

  it('answers the queued messages and posts the unposted replies of its own servers only; the other shard’s wait in the store, untouched, for their own process', async () => {
    const { discord } = world;
    const ours = discord.channelOnShard(0, 2);
    const theirs = discord.channelOnShard(1, 2);
    const store = openStore();
    const waitingHere = await sent(ours, 'what is milk?');
    const waitingThere = await sent(theirs, 'what is bread?');
    await queued(store, waitingHere);
    await queued(store, waitingThere);
    await unposted(store, await sent(ours, 'and cheese?'), 'Cheese is made of milk.');
    await unposted(store, await sent(theirs, 'and butter?'), 'Butter is churned cream.');
    const theirInbox = (await store.listInbox('discord')).filter((entry) => entry.identity.channelId === theirs);
    const theirReplies = (await store.listPendingReplies()).filter((reply) => reply.turn.identity.channelId === theirs);
    expect([theirInbox.length, theirReplies.length]).toEqual([1, 1]);
    await store.close();

    world.fake.enqueue(chatText('Milk is a drink.'));
    startShard(0);
    expect(await caughtUp(ours, waitingHere, 'Cheese is made of milk.')).toBe('Milk is a drink.');
    expect(await world.stop()).toBe(0);
    expect(discord.requests.filter((r) => r.path.startsWith(`/channels/${theirs}`) && r.method !== 'GET')).toEqual([]);
    expect(world.fake.requests).toHaveLength(1);
    const after = openStore();
    expect(await after.listInbox('discord')).toEqual(theirInbox);
    expect(await after.listPendingReplies()).toEqual(theirReplies);
    await after.close();

    world.fake.enqueue(chatText('Bread is baked dough.'));
    startShard(1);
    expect(await caughtUp(theirs, waitingThere, 'Butter is churned cream.')).toBe('Bread is baked dough.');
    expect(await world.stop()).toBe(0);
    expect(world.fake.requests).toHaveLength(2);
    const last = openStore();
    expect([await last.listInbox('discord'), await last.listPendingReplies()]).toEqual([[], []]);
    await last.close();
  });
});
