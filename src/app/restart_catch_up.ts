import type { ReplySink, ServedChannels } from '../conversation/transport.js';
import { deliverPendingReplies } from '../conversation/turns/reply_delivery.js';
import type { Logger } from '../core/logger.js';
import type { BotServices } from './bot_services.js';
import { tellInterrupted } from './interrupted_notices.js';

/**
 * What a transport owes its channels from before a restart: each turn this process's start-up
 * sweep found interrupted is announced once, as a reply to its request (whichever process
 * reclaimed a turn tells its channel), unless it is among the turns that go on by themselves
 * (`continued`); and each final reply whose delivery was never confirmed
 * is posted in the channels this process serves, below a fallback's reply `fallbackNote` (`llm.fallback_note`).
 * Resolves when those posts are done; never throws.
 */
export async function catchUpAfterRestart(services: BotServices, sink: ReplySink, channels: ServedChannels, fallbackNote: string, logger: Logger, continued: ReadonlySet<string>): Promise<void> {
  for (const turn of services.interrupted) {
    if (turn.identity.source === channels.source && !continued.has(turn.turnId)) tellInterrupted(sink, turn, 'restart');
  }
  await deliverPendingReplies(services.store, services.pendingReplies, { channels, sink, fallbackNote }, logger);
}
