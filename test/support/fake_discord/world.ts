/**
 * The fake Discord world's places: its guilds, their text channels, threads and categories, and
 * the DM channel, with the ids tests refer to.
 */
import { user, type SnowflakeCounter, type UserJson } from './fixtures.js';
/** A guild text channel of the fake world (type 0), as its one row in {@link World.guildChannels}. */
export interface GuildChannel {
  readonly id: string;
  readonly guildId: string;
  readonly name: string;
  readonly position: number;
}

/**
 * A channel of the first guild beside its text channels in {@link World.guildChannels}: the
 * category `Support`, the text channel `support` filed under it, and the thread `general-thread`
 * of `general`.
 */
export interface PlaceChannel {
  readonly id: string;
  readonly guildId: string;
  readonly name: string;
  /** Discord's channel type: 0 a text channel, 4 a category, 11 a public thread. */
  readonly type: 0 | 4 | 11;
  /** A text channel's category, a thread's channel; `null` for a category. */
  readonly parentId: string | null;
}

/** A guild of the fake world. */
export interface Guild {
  readonly id: string;
  readonly name: string;
}

/** The ids of everything in the fake world, fixed at start so tests can refer to them. */
export interface World {
  readonly applicationId: string;
  readonly bot: UserJson;
  /** The first guild, where {@link World.user} holds {@link World.roleId}. */
  readonly guildId: string;
  readonly guildName: string;
  /** Every guild, the first one first; the others' ids are the first's plus 1, 2, … milliseconds, so that they fall on other shards. */
  readonly guilds: readonly Guild[];
  /** The first guild's first text channel, `general`. */
  readonly channelId: string;
  /** The ids of the guilds' text channels in order, guild by guild, {@link World.channelId} first. */
  readonly channelIds: readonly string[];
  /** Every guild text channel with the guild it belongs to, in the order of {@link World.channelIds}. */
  readonly guildChannels: readonly GuildChannel[];
  readonly roleId: string;
  readonly user: UserJson;
  /** The direct-message channel between the bot and {@link World.user}. */
  readonly dmChannelId: string;
  /** The first guild's category `Support`. */
  readonly categoryId: string;
  /** The first guild's text channel `support`, filed under {@link World.categoryId}. */
  readonly supportChannelId: string;
  /** The thread `general-thread` of {@link World.channelId}. */
  readonly threadId: string;
  /** The category, the channel in it and the thread, in that order. */
  readonly placeChannels: readonly PlaceChannel[];
}

/**
 * Creates the bot, the guild, its first channel, a role, a user holding that role and their DM
 * channel, the guild's category with a text channel in it and a thread of the first channel, then
 * the guild's further `channelCount - 1` text channels (`general-2`, …), then each further guild
 * of `guildCount` with `channelCount` text channels, so the ids of a world with one guild and one
 * channel are the same whatever the counts.
 */
export function createWorld(ids: SnowflakeCounter, channelCount = 1, guildCount = 1): World {
  const botId = ids.next();
  const guildId = ids.next();
  const channelId = ids.next();
  const roleId = ids.next();
  const alice = user(ids.next(), 'alice', false);
  const dmChannelId = ids.next();
  const category: PlaceChannel = { id: ids.next(), guildId, name: 'Support', type: 4, parentId: null };
  const support: PlaceChannel = { id: ids.next(), guildId, name: 'support', type: 0, parentId: category.id };
  const thread: PlaceChannel = { id: ids.next(), guildId, name: 'general-thread', type: 11, parentId: channelId };
  const guildChannels: GuildChannel[] = [{ id: channelId, guildId, name: 'general', position: 0 }];
  for (let position = 1; position < channelCount; position += 1) guildChannels.push({ id: ids.next(), guildId, name: `general-${position + 1}`, position });
  const guilds: Guild[] = [{ id: guildId, name: 'Fake Guild' }];
  for (let index = 1; index < guildCount; index += 1) {
    // A snowflake's bits above the 22nd are its creation time in milliseconds: Discord routes a guild to a shard by them.
    const guild = { id: (BigInt(guildId) + (BigInt(index) << 22n)).toString(), name: `Fake Guild ${index + 1}` };
    guilds.push(guild);
    for (let position = 0; position < channelCount; position += 1) guildChannels.push({ id: ids.next(), guildId: guild.id, name: position === 0 ? 'general' : `general-${position + 1}`, position });
  }
  return {
    applicationId: botId,
    bot: user(botId, 'holdfast-bot', true),
    guildId,
    guildName: 'Fake Guild',
    guilds,
    channelId,
    channelIds: guildChannels.map((channel) => channel.id),
    guildChannels,
    roleId,
    user: alice,
    dmChannelId,
    categoryId: category.id,
    supportChannelId: support.id,
    threadId: thread.id,
    placeChannels: [category, support, thread],
  };
}

/** The guild text channel with this id, if the world has one. */
export function guildChannel(world: World, channelId: string): GuildChannel | undefined {
  return world.guildChannels.find((channel) => channel.id === channelId);
}

/** The category, the channel filed under it or the thread with this id, if it is one of them. */
export function placeChannel(world: World, channelId: string): PlaceChannel | undefined {
  return world.placeChannels.find((channel) => channel.id === channelId);
}

/** The guild a channel belongs to: its guild for a guild channel or thread, none otherwise. */
export function guildOf(world: World, channelId: string): string | undefined {
  return guildChannel(world, channelId)?.guildId ?? placeChannel(world, channelId)?.guildId;
}

/** The type of a channel of the world as MESSAGE_CREATE gives it: 1 a DM, 11 a thread, else 0 a text channel. */
export function channelType(world: World, channelId: string): number {
  if (guildOf(world, channelId) === undefined) return 1;
  return placeChannel(world, channelId)?.type ?? 0;
}
