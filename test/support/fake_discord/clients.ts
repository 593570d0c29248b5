import { once } from 'node:events';
import { Client, Events, GatewayIntentBits, Partials, type ClientOptions, type Message, type RESTOptions, type SendableChannels } from 'discord.js';
import { FakeDiscord, type FakeDiscordOptions } from './server.js';

const cleanups: (() => Promise<void>)[] = [];

/** Closes every fake and client the helpers below made, newest first: for `afterEach`. */
export async function closeFakeClients(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

/** Starts a fake Discord, closed by {@link closeFakeClients}. */
export async function startFake(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const fake = await FakeDiscord.start(options);
  cleanups.push(() => fake.close());
  return fake;
}

/** A discord.js client with the bot's intents against `fake` (its shards as `sharding` names them), destroyed by {@link closeFakeClients}. */
export function newClient(fake: FakeDiscord, rest: Partial<RESTOptions> = {}, sharding: Pick<ClientOptions, 'shards' | 'shardCount'> = {}): Client {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages],
    partials: [Partials.Channel],
    ...sharding,
    rest: { ...rest, api: fake.restUrl },
  });
  cleanups.push(() => client.destroy());
  return client;
}

/** Logs in to a fake started with `options` and waits until discord.js has the guild, so events are no longer queued. */
export async function loggedIn(rest: Partial<RESTOptions> = {}, options: FakeDiscordOptions = {}): Promise<{ fake: FakeDiscord; client: Client<true> }> {
  const fake = await startFake(options);
  const client = newClient(fake, rest);
  const ready = once(client, Events.ClientReady);
  await client.login(FakeDiscord.TOKEN);
  await ready;
  if (!client.isReady()) throw new Error('client is not ready');
  return { fake, client };
}

/** Dispatches a message mentioning the bot and resolves with it as discord.js emits it. */
export async function receive(fake: FakeDiscord, client: Client, content: string): Promise<Message> {
  const received = once(client, Events.MessageCreate) as Promise<[Message]>;
  await fake.dispatchMessage({ channelId: fake.world.channelId, authorId: fake.world.user.id, content, mentionsBot: true });
  const [message] = await received;
  return message;
}

/** The guild's text channel from the client's cache. */
export function guildChannel(fake: FakeDiscord, client: Client): SendableChannels {
  const channel = client.channels.cache.get(fake.world.channelId);
  if (channel?.isSendable() !== true) throw new Error('channel is not sendable');
  return channel;
}

/** Matches the bot's message posts in the guild channel, recorded or about to be answered. */
export const isPost =
  (fake: FakeDiscord) =>
  (r: { method: string; path: string }): boolean =>
    r.method === 'POST' && r.path === `/channels/${fake.world.channelId}/messages`;

/** The statuses the fake answered the bot's message posts in the guild channel with, in order. */
export function postStatuses(fake: FakeDiscord): number[] {
  return fake.requests.filter(isPost(fake)).map((r) => r.status);
}
