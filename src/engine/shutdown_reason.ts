import { marked } from '../core/marked.js';

const SHUTDOWN = marked<ShutdownReason>('ShutdownReason');

/**
 * The reason a turn's signal carries when the program is shutting down: the turn is suspended
 * with its work kept (reason `shutdown`), not cancelled like a /stop.
 */
export class ShutdownReason extends Error {
  override readonly name = 'ShutdownReason';

  constructor() {
    super('the bot is shutting down');
    SHUTDOWN.mark(this);
  }
}

export function isShutdownReason(reason: unknown): reason is ShutdownReason {
  return SHUTDOWN.is(reason);
}
