import type { Channel, Guild } from 'discord.js';
import type { MessageNames, MessagePlace } from '../conversation/transport.js';

/** What a direct message's server and channel are called in the system prompt. */
const DIRECT_MESSAGES = 'direct messages';

/**
 * Where a message in `channel` was said (its server, a thread's channel, the category), as the
 * client's cache knows it: a thread's category is its channel's. A channel the cache does not
 * hold (`null`) is placed in its server `guildId` alone; a direct message nowhere.
 */
export function placeOf(channel: Channel | null, guildId: string | null): MessagePlace {
  if (channel === null) return guildId === null ? {} : { guildId };
  if (channel.isDMBased()) return {};
  if (channel.isThread()) return placed(channel.guildId, channel.parentId, channel.parent?.parentId ?? null);
  return placed(channel.guildId, null, channel.parentId);
}

function placed(guildId: string, parentChannelId: string | null, categoryId: string | null): MessagePlace {
  return { guildId, ...(parentChannelId === null ? {} : { parentChannelId }), ...(categoryId === null ? {} : { categoryId }) };
}

/**
 * How a message in `channel` of `guild` by `user` (their display name there) is named, as the
 * client's cache knows it: the server's and the channel's (or thread's) names, `direct messages`
 * for both in one; a name the cache does not hold is empty.
 */
export function namesOf(channel: Channel | null, guild: Guild | null, user: string): MessageNames {
  if (channel?.isDMBased() === true) return { server: DIRECT_MESSAGES, channel: DIRECT_MESSAGES, user };
  return { server: guild?.name ?? '', channel: channel === null || channel.isDMBased() ? '' : channel.name, user };
}
