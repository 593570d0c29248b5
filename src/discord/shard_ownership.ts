import type { Client, ClientOptions } from 'discord.js';
import type { Logger } from '../core/logger.js';
import type { DiscordSettings } from './discord_settings.js';

/** Discord's answers for a channel the bot cannot see: Unknown Channel, Missing Access. */
const UNSEEN_CHANNEL_CODES: readonly unknown[] = [10003, 50001];

/** The discord.js client options for `discord.shards`: none for one process that is the whole bot. */
export function shardOptions(shards: DiscordSettings['shards']): Pick<ClientOptions, 'shards' | 'shardCount'> {
  if (shards === undefined) return {};
  if (shards === 'auto') return { shards: 'auto' };
  return { shards: [...shards.ids], shardCount: shards.count };
}

/** `discord.shards` as the store's registry of processes shows it: `auto`, `0,1 of 4`, or `null` for one process that is the whole bot. */
export function describeShards(shards: DiscordSettings['shards']): string | null {
  if (shards === undefined) return null;
  if (shards === 'auto') return 'auto';
  return `${shards.ids.join(',')} of ${shards.count}`;
}

/** The shard that receives a server's events, as Discord routes them: `(guild_id >> 22) % count`. */
export function shardOfGuild(guildId: string, count: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(count));
}

/**
 * Whether this process serves a channel (DESIGN §7.7): a server's channel when one of its shards
 * owns the server, a direct message when it runs shard 0. A process that runs every shard serves
 * everything. A channel missing from the client's cache (a direct message after a restart, a
 * server of another shard) is asked of Discord once; one Discord no longer shows is shard 0's, like
 * a direct message, so that its waiting work is settled exactly once. Resolves false when
 * Discord cannot be asked now: the work waits for a later start.
 */
export function channelOwnership(client: Client<true>, logger: Logger): (channelId: string) => Promise<boolean> {
  const count = client.options.shardCount ?? 1;
  const ours = new Set(client.ws.shards.keys());
  const known = new Map<string, Promise<boolean>>();
  const owns = async (channelId: string): Promise<boolean> => {
    try {
      const channel = client.channels.cache.get(channelId) ?? (await client.channels.fetch(channelId, { allowUnknownGuild: true, cache: false }));
      if (channel === null || channel.isDMBased()) return ours.has(0);
      return ours.has(shardOfGuild(channel.guildId, count));
    } catch (error) {
      if (typeof error === 'object' && error !== null && 'code' in error && UNSEEN_CHANNEL_CODES.includes(error.code)) return ours.has(0);
      throw error;
    }
  };
  return (channelId) => {
    if (ours.size >= count) return Promise.resolve(true);
    const answer =
      known.get(channelId) ??
      owns(channelId).catch((error: unknown) => {
        known.delete(channelId);
        logger.warn({ err: error, channel: channelId }, 'could not tell which shard owns a channel: its waiting work is left for a later start');
        return false;
      });
    known.set(channelId, answer);
    return answer;
  };
}
