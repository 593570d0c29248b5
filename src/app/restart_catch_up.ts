import type { ReplySink } from '../conversation/transport.js';
import { deliverPendingReplies } from '../conversation/reply_delivery.js';
import type { Logger } from '../core/logger.js';
import type { BotServices } from './bot_services.js';
import { tellInterrupted } from './interrupted_notices.js';

/**
 * What a transport owes its channels from before a restart: each turn the start-up sweep found
 * interrupted is announced once, as a reply to its request, and each final reply whose delivery
 * was never confirmed is posted. Resolves when those posts are done; never throws.
 */
export async function catchUpAfterRestart(services: BotServices, sink: ReplySink, source: string, logger: Logger): Promise<void> {
  for (const turn of services.interrupted) {
    if (turn.identity.source === source) tellInterrupted(sink, turn, 'restart');
  }
  if (services.store !== undefined) await deliverPendingReplies(services.store, services.pendingReplies, source, sink, logger);
}
