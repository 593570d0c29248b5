import { guildChannel, type GuildChannel, type World } from './fixtures.js';
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

/** The direct-message channel (type 1) between the bot and the world's user. */
export function dmChannelPayload(world: World, lastMessageId: string | null): Record<string, unknown> {
  return { id: world.dmChannelId, type: 1, last_message_id: lastMessageId, recipients: [world.user], flags: 0 };
}

const unknownChannel = (): HttpReply => notFound('Unknown Channel', 10003);

/** `GET /channels/:id`: a guild text channel or the DM channel; 10003 for any other id. */
export function getChannel(state: RestState, channelId: string): HttpReply {
  const { world } = state;
  const lastMessageId = channelMessages(state.messages, channelId).at(-1)?.id ?? null;
  const channel = guildChannel(world, channelId);
  if (channel !== undefined) return { status: 200, body: guildChannelPayload(channel, lastMessageId) };
  if (channelId === world.dmChannelId) return { status: 200, body: dmChannelPayload(world, lastMessageId) };
  return unknownChannel();
}

/** `POST /users/@me/channels`: the DM channel with the world's user; 10013 for any other recipient. */
export function openDm(state: RestState, body: unknown): HttpReply {
  const { world } = state;
  if ((body as OpenDmBody | undefined)?.recipient_id !== world.user.id) return notFound('Unknown User', 10013);
  const lastMessageId = channelMessages(state.messages, world.dmChannelId).at(-1)?.id ?? null;
  return { status: 200, body: dmChannelPayload(world, lastMessageId) };
}
