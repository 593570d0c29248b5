import type { Client } from 'discord.js';
import type { ChannelScope } from '../conversation/transport.js';

/** Discord's answers for a channel the bot cannot see in any server it is in: Unknown Channel, Missing Access. */
const UNSEEN_CHANNEL_CODES: readonly unknown[] = [10003, 50001];

/**
 * The server an admin's command was used in, as the scope of what it shows and changes: a
 * channel or thread belongs to it when Discord says it is in that server (from the client's
 * cache, else asked once per command). A direct message belongs to no server; without a
 * server (`guildId` null) the scope holds nothing.
 */
export function serverScope(client: Client, guildId: string | null): ChannelScope {
  const known = new Map<string, Promise<boolean>>();
  const inServer = async (channelId: string): Promise<boolean> => {
    if (guildId === null) return false;
    const cached = client.channels.cache.get(channelId);
    try {
      const channel = cached ?? (await client.channels.fetch(channelId));
      return channel !== null && !channel.isDMBased() && channel.guildId === guildId;
    } catch (error) {
      if (typeof error === 'object' && error !== null && 'code' in error && UNSEEN_CHANNEL_CODES.includes(error.code)) return false;
      throw error;
    }
  };
  return {
    name: 'this server',
    includes(channelId) {
      const answer = known.get(channelId) ?? inServer(channelId);
      known.set(channelId, answer);
      return answer;
    },
    mentionChannel: (channelId) => `<#${channelId}>`,
    mentionUser: (userId) => `<@${userId}>`,
  };
}
