const SHUTDOWN = Symbol.for('holdfast.ShutdownReason');

/**
 * The reason a turn's signal carries when the program is shutting down: the turn is suspended
 * with its work kept (reason `shutdown`), not cancelled like a /stop.
 */
export class ShutdownReason extends Error {
  readonly [SHUTDOWN] = true;
  override readonly name = 'ShutdownReason';

  constructor() {
    super('the bot is shutting down');
  }
}

export function isShutdownReason(reason: unknown): reason is ShutdownReason {
  return typeof reason === 'object' && reason !== null && SHUTDOWN in reason;
}
