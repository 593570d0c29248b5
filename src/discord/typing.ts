import type { Clock } from '../core/clock.js';
import { RELEASED } from '../core/linked_abort.js';
import { repeatUntilAborted } from '../core/repeat.js';

/** Discord shows "is typing…" for about ten seconds after each request, so it is renewed before then. */
export const TYPING_RENEW_MS = 8_000;

/** The longest an indicator is renewed: a turn whose end this process never hears of (it was fenced) does not type forever. */
export const TYPING_MAX_MS = 15 * 60_000;

/**
 * The typing indicator of each working turn, renewed until the turn shows text, posts a notice or
 * ends, so that a long model call or tool never looks like a bot that went quiet.
 */
export class TypingIndicators {
  readonly #running = new Map<string, AbortController>();

  /**
   * @param type shows the indicator in a channel once.
   * @param shutdown stops every indicator when it aborts.
   */
  constructor(
    private readonly clock: Clock,
    private readonly type: (channelId: string) => void,
    shutdown: AbortSignal,
  ) {
    shutdown.addEventListener('abort', () => {
      for (const turn of [...this.#running.keys()]) this.stop(turn);
    });
  }

  /** Shows the indicator for `turn` in its channel now and every {@link TYPING_RENEW_MS} until {@link stop}. */
  start(turn: string, channelId: string): void {
    this.stop(turn);
    const controller = new AbortController();
    this.#running.set(turn, controller);
    void repeatUntilAborted(this.clock, TYPING_RENEW_MS, controller.signal, () => this.type(channelId), { workFirst: true, forMs: TYPING_MAX_MS });
  }

  /** Stops renewing `turn`'s indicator (Discord clears it by itself when the bot posts). */
  stop(turn: string): void {
    this.#running.get(turn)?.abort(RELEASED);
    this.#running.delete(turn);
  }
}
