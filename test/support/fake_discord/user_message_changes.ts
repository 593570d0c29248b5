import { EDITED_TIMESTAMP, type MessageJson } from './fixtures.js';
import type { FakeGateway } from './gateway.js';
import { channelType, guildOf, type World } from './world.js';

/**
 * A member editing or deleting messages already sent: the stored message changes as `GET` will
 * return it, and the gateway sends the event discord.js would receive.
 */
export class UserMessageChanges {
  constructor(
    private readonly world: World,
    private readonly messages: Map<string, MessageJson>,
    private readonly gateway: FakeGateway,
  ) {}

  /** Changes a stored message's content and sends MESSAGE_UPDATE. */
  edit(id: string, content: string): void {
    const message = this.messages.get(id);
    if (message === undefined) throw new Error(`no message ${id}`);
    message.content = content;
    message.edited_timestamp = EDITED_TIMESTAMP;
    this.gateway.dispatch('MESSAGE_UPDATE', eventOf(this.world, message), message.guild_id);
  }

  /** Forgets a stored message, so `GET` answers 10008 Unknown Message, and sends MESSAGE_DELETE. */
  delete(id: string): void {
    const message = this.messages.get(id);
    if (message === undefined) return;
    this.messages.delete(id);
    const { guild_id: guildId } = message;
    this.gateway.dispatch('MESSAGE_DELETE', { id, channel_id: message.channel_id, ...(guildId === undefined ? {} : { guild_id: guildId }) }, guildId);
  }

  /** Forgets stored messages of one channel at once, as a moderator's purge does, and sends MESSAGE_DELETE_BULK. */
  deleteMany(channelId: string, ids: readonly string[]): void {
    for (const id of ids) this.messages.delete(id);
    const guildId = guildOf(this.world, channelId);
    this.gateway.dispatch('MESSAGE_DELETE_BULK', { ids, channel_id: channelId, ...(guildId === undefined ? {} : { guild_id: guildId }) }, guildId);
  }
}

/** A message as a MESSAGE_CREATE or MESSAGE_UPDATE carries it: with the channel's type (0 guild text, 1 DM, 11 thread). */
export function eventOf(world: World, message: MessageJson): Record<string, unknown> {
  return { ...message, channel_type: channelType(world, message.channel_id) };
}
