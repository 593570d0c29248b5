import type { Channel } from 'discord.js';
import type { MessagePlace } from '../conversation/transport.js';

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
