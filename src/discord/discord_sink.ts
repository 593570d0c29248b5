import type { Client, TextBasedChannel } from 'discord.js';
import type { BotEvent, ReplySink } from '../chat/intake_types.js';
import type { Logger } from '../core/logger.js';
import { splitMessage } from './message_split.js';
import { SAFE_MENTIONS } from './triggers.js';

type SendableChannel = TextBasedChannel & { send: (options: object) => Promise<unknown>; sendTyping: () => Promise<unknown> };

/**
 * The bot's events on Discord: replies and notices answer the message they are about, split at
 * line or sentence boundaries when longer than a message; notices are marked; a turn that starts
 * shows the typing indicator. What is posted in one channel is posted in order.
 */
export function discordSink(client: Client, logger: Logger): ReplySink {
  const queues = new Map<string, Promise<void>>();
  const inOrder = (channelId: string, work: (channel: SendableChannel) => Promise<unknown>): void => {
    const previous = queues.get(channelId) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        const channel = await client.channels.fetch(channelId);
        if (channel === null || !channel.isTextBased() || !('send' in channel)) throw new Error(`channel ${channelId} cannot take messages`);
        await work(channel);
      })
      .catch((error: unknown) => logger.error({ err: error, channel: channelId }, 'could not post to Discord'));
    queues.set(channelId, next);
  };
  return {
    post(event: BotEvent) {
      switch (event.type) {
        case 'message': {
          const text = event.kind === 'reply' ? event.text : `ℹ️ ${event.text}`;
          inOrder(event.channelId, async (channel) => {
            const [first = '', ...rest] = splitMessage(text);
            await channel.send({ content: first, reply: { messageReference: event.inReplyTo, failIfNotExists: false }, allowedMentions: SAFE_MENTIONS });
            for (const part of rest) await channel.send({ content: part, allowedMentions: SAFE_MENTIONS });
          });
          return;
        }
        case 'turn':
          if (event.status === 'ACTIVE') inOrder(event.channelId, (channel) => channel.sendTyping());
          return;
        case 'delta':
          return;
        default: {
          const unreachable: never = event;
          return unreachable;
        }
      }
    },
  };
}
