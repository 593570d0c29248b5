import { assertNever } from '../../../src/core/assert_never.js';
import { FIXED_TIMESTAMP } from './fixtures.js';
import { guildChannel, placeChannel, type GuildChannel, type PlaceChannel, type World } from './world.js';
import { notFound, type HttpReply } from './http.js';
import { channelMessages } from './messages.js';
import type { RestState } from './rest.js';

/** The body of `POST /users/@me/channels`. */
interface OpenDmBody {
  readonly recipient_id?: unknown;
}

/** A guild text channel (type 0), as GUILD_CREATE and `GET /channels/:id` carry it. */
export function guildChannelPayload(channel: GuildChannel, lastMessageId: string | null): Record<string, unknown> {
  return {
    id: channel.id,
    type: 0,
    guild_id: channel.guildId,
    name: channel.name,
    position: channel.position,
    parent_id: null,
    topic: null,
    nsfw: false,
    last_message_id: lastMessageId,
    rate_limit_per_user: 0,
    permission_overwrites: [],
    flags: 0,
  };
}

/**
 * The category (type 4), the text channel in it (type 0) or the thread (type 11), as GUILD_CREATE
 * and `GET /channels/:id` carry it.
 */
export function placeChannelPayload(channel: PlaceChannel, lastMessageId: string | null): Record<string, unknown> {
  const common = { id: channel.id, type: channel.type, guild_id: channel.guildId, name: channel.name, parent_id: channel.parentId, flags: 0 };
  switch (channel.type) {
    case 4:
      return { ...common, position: 0, permission_overwrites: [] };
    case 0:
      return { ...common, position: 0, topic: null, nsfw: false, last_message_id: lastMessageId, rate_limit_per_user: 0, permission_overwrites: [] };
    case 11:
      return {
        ...common,
        owner_id: null,
        last_message_id: lastMessageId,
        rate_limit_per_user: 0,
        message_count: 0,
        member_count: 1,
        total_message_sent: 0,
        thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: FIXED_TIMESTAMP, locked: false },
      };
    default:
      return assertNever(channel.type);
  }
}

/** The direct-message channel (type 1) between the bot and the world's user. */
export function dmChannelPayload(world: World, lastMessageId: string | null): Record<string, unknown> {
  return { id: world.dmChannelId, type: 1, last_message_id: lastMessageId, recipients: [world.user], flags: 0 };
}

const unknownChannel = (): HttpReply => notFound('Unknown Channel', 10003);

/** Any channel of the world as Discord describes it (the DM channel too); `undefined` for an id it does not have. */
export function channelPayload(world: World, channelId: string, lastMessageId: string | null): Record<string, unknown> | undefined {
  const channel = guildChannel(world, channelId);
  if (channel !== undefined) return guildChannelPayload(channel, lastMessageId);
  const place = placeChannel(world, channelId);
  if (place !== undefined) return placeChannelPayload(place, lastMessageId);
  return channelId === world.dmChannelId ? dmChannelPayload(world, lastMessageId) : undefined;
}

/** `GET /channels/:id`: a channel or thread of the world, or the DM channel; 10003 for any other id. */
export function getChannel(state: RestState, channelId: string): HttpReply {
  const lastMessageId = channelMessages(state.messages, channelId).at(-1)?.id ?? null;
  const body = channelPayload(state.world, channelId, lastMessageId);
  return body === undefined ? unknownChannel() : { status: 200, body };
}

/** `POST /users/@me/channels`: the DM channel with the world's user; 10013 for any other recipient. */
export function openDm(state: RestState, body: unknown): HttpReply {
  const { world } = state;
  if ((body as OpenDmBody | undefined)?.recipient_id !== world.user.id) return notFound('Unknown User', 10013);
  const lastMessageId = channelMessages(state.messages, world.dmChannelId).at(-1)?.id ?? null;
  return { status: 200, body: dmChannelPayload(world, lastMessageId) };
}
