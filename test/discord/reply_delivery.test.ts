import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import { botMessages, discordConfigYaml, isPost, say, type BotMessageBody, type InProcessBot } from '../support/discord_bot.js';
import { useDiscordWorld } from '../support/discord_world.js';
import { FakeDiscord, type RecordedRequest } from '../support/fake_discord/server.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { openTestStore, startingWith } from '../support/turn_store.js';
import { storedReply, storedTurn } from '../support/stored_rows.js';

/** A reply of two Discord messages: 40 lines of 60 characters. */
const TWO_PART_REPLY = Array.from({ length: 40 }, (_, i) => `Line ${String(i).padStart(2, '0')}: ${'milk is a drink, '.repeat(3)}`).join('\n');
const DELIVERY = 'discord:\n  delivery_backoff_seconds: 0.01\n';

describe('final replies on Discord are never lost and never posted twice', { timeout: 60_000 }, () => {
  const world = useDiscordWorld();

  const start = (): InProcessBot => world.start(discordConfigYaml(world.discord, world.fake.baseUrl).replace('discord:\n', DELIVERY));

  /** Stops the bot and opens its turn store, for what it recorded. */
  async function storeAfterStop(): Promise<TurnStore> {
    expect(await world.stop()).toBe(0);
    return openTestStore(join(world.temp.path(), 'data')).store;
  }

  const storeFile = (): string => join(world.temp.path(), 'data', 'turn_state', 'turns.sqlite3');
  const botTexts = (): string[] => botMessages(world.discord).map((m) => m.content);
  const isFollowUp = (r: Pick<RecordedRequest, 'method' | 'path' | 'body'>): boolean => isPost(world.discord)(r) && (r.body as BotMessageBody).message_reference === undefined;

  it('posts a follow-up once although Discord failed it five times, the first after creating it', async () => {
    world.fake.enqueue(chatText(TWO_PART_REPLY));
    world.discord.failNext(isFollowUp, { status: 500, times: 5, afterEffect: true });
    await start().logged('connected to Discord');
    const question = await say(world.discord, 'tell me about milk');
    await world.discord.whenRequest((r) => isFollowUp(r) && r.status === 200);
    const messages = botTexts();
    expect(messages).toHaveLength(2);
    expect(messages.join('\n')).toBe(TWO_PART_REPLY);
    expect(world.discord.requests.filter((r) => isFollowUp(r) && r.status === 500)).toHaveLength(5);

    expect(await world.stop()).toBe(0);
    const turn = storedTurn(storeFile(), { source: 'discord', channelId: world.discord.world.channelId, messageId: question });
    expect(storedReply(storeFile(), turn?.turnId ?? '')).toMatchObject({ state: 'delivered', text: null, partsDelivered: 2, deliveredAt: expect.any(Number) as unknown });
  });

  it('after a restart, posts a reply whose delivery was not confirmed once, replacing the unfinished draft', async () => {
    const question = await say(world.discord, 'tell me about milk');
    const draft = await postAsBot({ content: 'Milk is', message_reference: { message_id: question } });
    const { store } = openTestStore(join(world.temp.path(), 'data'));
    const lease = await admitted(store, question);
    await store.complete(lease, 'Milk is a drink.');
    await store.close();

    start();
    await world.discord.whenRequest((r) => r.method === 'PATCH' && r.path === `/channels/${world.discord.world.channelId}/messages/${draft}`);
    expect(botTexts()).toEqual(['Milk is a drink.']);
    expect(world.discord.requests.filter(isPost(world.discord))).toHaveLength(1);
    const after = await storeAfterStop();
    expect(storedReply(storeFile(), lease.turnId)).toMatchObject({ state: 'delivered' });
    expect(await after.listPendingReplies()).toEqual([]);
    await after.close();
  });

  it('after a restart, posts only the parts not yet confirmed', async () => {
    const question = await say(world.discord, 'tell me about milk');
    const { store } = openTestStore(join(world.temp.path(), 'data'));
    const lease = await admitted(store, question);
    await store.complete(lease, TWO_PART_REPLY);
    await store.recordReplyDelivery(lease.turnId, { kind: 'parts_delivered', partsDelivered: 1 });
    await store.close();

    start();
    const posted = await world.discord.whenRequest((r) => isFollowUp(r) && r.status === 200);
    expect(TWO_PART_REPLY.endsWith((posted.body as BotMessageBody).content)).toBe(true);
    expect(world.discord.requests.filter(isPost(world.discord))).toHaveLength(1);
    expect(await world.stop()).toBe(0);
    expect(storedReply(storeFile(), lease.turnId)).toMatchObject({ state: 'delivered', partsDelivered: 2 });
  });

  it('keeps a reply Discord failed until the deadline, and posts the rest of it at the next start', async () => {
    let down = true;
    world.fake.enqueue(chatText(TWO_PART_REPLY));
    world.discord.failNext((r) => down && isFollowUp(r), { status: 503, times: 1000 });
    const yaml = discordConfigYaml(world.discord, world.fake.baseUrl).replace('discord:\n', `${DELIVERY}  delivery_deadline_seconds: 0.05\n`);
    const first = world.start(yaml);
    await first.logged('connected to Discord');
    const question = await say(world.discord, 'tell me about milk');
    await first.logged('the reply is not delivered yet');
    expect(await world.stop()).toBe(0);
    expect(botTexts()).toHaveLength(1);

    down = false;
    await world.start(yaml).logged('connected to Discord');
    await world.discord.whenRequest((r) => isFollowUp(r) && r.status === 200);
    expect(botTexts().join('\n')).toBe(TWO_PART_REPLY);
    expect(await world.stop()).toBe(0);
    const turn = storedTurn(storeFile(), { source: 'discord', channelId: world.discord.world.channelId, messageId: question });
    expect(storedReply(storeFile(), turn?.turnId ?? '')).toMatchObject({ state: 'delivered', partsDelivered: 2 });
  });

  it('gives a reply up, logged and never posted again, when Discord refuses it for good', async () => {
    world.fake.enqueue(chatText(TWO_PART_REPLY));
    world.discord.failNext(isFollowUp, { status: 403 });
    const running = start();
    await running.logged('connected to Discord');
    const question = await say(world.discord, 'tell me about milk');
    await running.logged('the reply cannot be delivered: given up');
    const store = await storeAfterStop();
    const turn = storedTurn(storeFile(), { source: 'discord', channelId: world.discord.world.channelId, messageId: question });
    expect(storedReply(storeFile(), turn?.turnId ?? '')).toMatchObject({ state: 'abandoned', text: null, partsDelivered: 1 });
    expect(await store.listPendingReplies()).toEqual([]);
    await store.close();
  });

  it('after a restart, gives up a reply whose channel is gone instead of trying it at every start', async () => {
    const { store } = openTestStore(join(world.temp.path(), 'data'));
    const lease = await admitted(store, '1300000000000000405', '1300000000000000404');
    await store.complete(lease, 'Nobody will read this.');
    await store.close();

    const running = start();
    await running.logged('the reply cannot be delivered: given up');
    const after = await storeAfterStop();
    expect(storedReply(storeFile(), lease.turnId)).toMatchObject({ state: 'abandoned', text: null, failure: expect.stringContaining('Unknown Channel') as unknown });
    expect(await after.listPendingReplies()).toEqual([]);
    await after.close();
  });

  async function postAsBot(body: object): Promise<string> {
    const response = await fetch(`${world.discord.restUrl}/v10/channels/${world.discord.world.channelId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${FakeDiscord.TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return ((await response.json()) as { id: string }).id;
  }

  async function admitted(store: TurnStore, messageId: string, channelId = world.discord.world.channelId) {
    const admission = await store.admit({ identity: { source: 'discord', channelId, messageId }, requesterId: world.discord.world.user.id, messageDigest: 'd', start: startingWith() });
    if (admission.disposition !== 'admitted') throw new Error(`not admitted: ${admission.disposition}`);
    return admission.lease;
  }
});
