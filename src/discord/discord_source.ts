import type { Client } from 'discord.js';
import { messageDigest, type MessageSource } from '../conversation/transport.js';
import { withoutBotMention } from './mention_policy.js';
import { placeOf } from './message_place.js';

/**
 * The original messages of turns, re-read from Discord before a resume: a deleted message
 * (Discord's "Unknown Message") comes back as `undefined`; an edited one has another digest.
 * Each comes with where it was said, for the `overrides` entry of the resumed turn, and with the
 * roles its author holds now (their member as the cache knows it, else as Discord says).
 */
export function discordMessageSource(client: Client<true>): MessageSource {
  return {
    async fetchOriginal(ref) {
      try {
        const channel = await client.channels.fetch(ref.channelId);
        if (channel === null || !channel.isTextBased()) return undefined;
        const message = await channel.messages.fetch({ message: ref.messageId, force: true });
        const author = message.member ?? (await message.guild?.members.fetch(message.author.id).catch(() => null)) ?? null;
        return {
          authorId: message.author.id,
          authorRoleIds: author === null ? [] : [...author.roles.cache.keys()],
          digest: messageDigest(withoutBotMention(message.content, client.user.id)),
          place: placeOf(channel, message.guildId),
        };
      } catch (error) {
        if (typeof error === 'object' && error !== null && 'code' in error && error.code === 10008) return undefined;
        throw error;
      }
    },
  };
}
