import type { Clock } from '../core/clock.js';

/** The window Discord's global limit counts requests in. */
const WINDOW_MS = 1_000;

/**
 * Discord's global limit on REST requests (`discord.requests_per_second`) as a budget the bot
 * spends by need. Every request the bot makes to a channel counts; one it can do without (the
 * typing indicator) is made only while fewer than half of the limit went out in the last second.
 * Under load the limit then goes to what members wait for: the first words of a reply, its end,
 * notices. Past the limit discord.js itself holds every request back; nothing is dropped here
 * but what is optional.
 */
export class RequestBudget {
  /** When each request of the last second went out, oldest first (monotonic ms). */
  readonly #sent: number[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly perSecond: number,
  ) {}

  /** Counts `requests` (one by default) the bot makes now whatever the budget says: only those that go out, not the events held back. */
  spend(requests = 1): void {
    const now = this.#lastSecond();
    for (let sent = 0; sent < requests; sent += 1) this.#sent.push(now);
  }

  /** Whether an optional request may go out now; counts it when it may. */
  spareForOptional(): boolean {
    const now = this.#lastSecond();
    if (this.#sent.length >= this.perSecond / 2) return false;
    this.#sent.push(now);
    return true;
  }

  /** Forgets the requests older than a second; returns the time now. */
  #lastSecond(): number {
    const now = this.clock.monotonicNow();
    while (this.#sent.length > 0 && (this.#sent[0] ?? now) <= now - WINDOW_MS) this.#sent.shift();
    return now;
  }
}
