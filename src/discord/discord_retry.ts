import { nextBackoff, type BackoffSchedule } from '../core/backoff.js';
import type { Clock } from '../core/clock.js';

/** The longest wait between two attempts. */
const BACKOFF_CAP_MS = 30_000;

/** How a request to Discord is tried again after Discord failed to take it. */
export interface DiscordRetryPolicy {
  readonly clock: Clock;
  /** The first wait; each further one doubles, up to 30 s. */
  readonly backoffMs: number;
  /** How long, from the first attempt, attempts may still start. */
  readonly deadlineMs: number;
  /** Ends the waits between attempts (the bot is shutting down). */
  readonly signal: AbortSignal;
}

/** The waits between attempts: doubling from `backoffMs` up to 30 s, none ending past the deadline. */
export function discordBackoff(policy: Pick<DiscordRetryPolicy, 'backoffMs' | 'deadlineMs'>): BackoffSchedule {
  return { initialMs: policy.backoffMs, factor: 2, capMs: BACKOFF_CAP_MS, jitter: 'none', deadlineMs: policy.deadlineMs };
}

/**
 * Whether Discord answered with a 4xx other than 429: it refused the request itself, so sending
 * it again gets the same answer. discord.js waits out 429s by itself.
 */
export function isRefusedByDiscord(error: unknown): boolean {
  const status = typeof error === 'object' && error !== null && 'status' in error && typeof error.status === 'number' ? error.status : undefined;
  return status !== undefined && status >= 400 && status < 500 && status !== 429;
}

/**
 * Runs `attempt` until it succeeds. A failure Discord may recover from — a 5xx answer after
 * discord.js's own immediate retries, a lost connection, a timeout — is tried again after an
 * exponential backoff, while the deadline allows; a refusal ({@link isRefusedByDiscord}) is
 * thrown at once, and so is the last failure when time runs out or `signal` aborts.
 */
export async function withDiscordRetry<T>(policy: DiscordRetryPolicy, attempt: () => Promise<T>): Promise<T> {
  const { clock } = policy;
  const schedule = discordBackoff(policy);
  const start = clock.monotonicNow();
  for (let failures = 0; ; failures += 1) {
    try {
      return await attempt();
    } catch (error) {
      const wait = nextBackoff(schedule, failures, clock.monotonicNow() - start);
      if (isRefusedByDiscord(error) || policy.signal.aborted || wait === undefined) throw error;
      await clock.sleep(wait, policy.signal).catch(() => {
        throw error;
      });
    }
  }
}
