import { nextBackoff, type BackoffSchedule } from './backoff.js';
import { abortReason, type Clock } from './clock.js';
import type { Logger } from './logger.js';
import { marked } from './marked.js';
import type { Random } from './random.js';

/** The waits between attempts at start: below 1 s, then 2 s, 4 s … up to 30 s, each drawn at random below its ceiling so that processes restarted together spread out. */
const START_BACKOFF = { initialMs: 1_000, factor: 2, capMs: 30_000, jitter: 'full' } as const;

/**
 * The `code` of a failure to reach a server over the network: refused, not resolved (DNS), reset,
 * timed out, unreachable. A server that answered, however it answered, is none of these.
 */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/** How the start waits for what it cannot reach yet: Discord, the PostgreSQL store. */
export interface StartupRetry {
  readonly clock: Clock;
  /** Draws the jitter of the waits. */
  readonly random: Random;
  readonly logger: Logger;
  /** `startup_timeout_seconds`, in milliseconds: how long after the first attempt at one thing another may still start. */
  readonly timeoutMs: number;
  /** Aborted by SIGINT or SIGTERM: ends the wait, and the attempt under way, at once. */
  readonly signal: AbortSignal;
}

/** One thing the start needs, which may not answer at once. */
export interface StartupNeed<T> {
  /** What is reached, for people: `Discord at https://discord.com/api`. */
  readonly what: string;
  /**
   * One attempt. `signal` aborts when the time is up or the process is stopped; the attempt then
   * lets go of what it holds (a failure after that is ignored).
   */
  readonly attempt: (signal: AbortSignal) => Promise<T>;
  /** Whether a failure says the thing could not be reached, which waiting may cure; any other failure ends the start as it is. */
  readonly unreachable: (error: unknown) => boolean;
}

const UNREACHABLE = marked<UnreachableAtStartError>('UnreachableAtStartError');

/** Something the start needs could not be reached for `startup_timeout_seconds`: the program exits 1, and a service manager may start it again. */
export class UnreachableAtStartError extends Error {
  override readonly name = 'UnreachableAtStartError';

  /** @param waitedMs from the first attempt to the last failure; no further wait fit in `timeoutMs`. */
  constructor(
    readonly what: string,
    readonly waitedMs: number,
    readonly attempts: number,
    readonly timeoutMs: number,
    cause: unknown,
  ) {
    super(`could not reach ${what} for ${secondsOf(waitedMs)} s (${attempts} ${attempts === 1 ? 'attempt' : 'attempts'}; startup_timeout_seconds: ${timeoutMs / 1000}): ${failureText(cause)}`, {
      cause,
    });
    UNREACHABLE.mark(this);
  }
}

/** Whether `error` is an {@link UnreachableAtStartError}. */
export const isUnreachableAtStart = UNREACHABLE.is;

/** An attempt that was still going when the time was up. */
class NoAnswerInTime extends Error {
  override readonly name = 'NoAnswerInTime';

  constructor() {
    super('no answer in time');
  }
}

/**
 * Whether `error` (or its `cause`) carries the `code` of a failure to reach a server over the
 * network (connection refused or reset, a name that does not resolve, a timeout).
 */
export function isNetworkFailure(error: unknown): boolean {
  const code = fieldOf(error, 'code') ?? fieldOf(fieldOf(error, 'cause'), 'code');
  return typeof code === 'string' && NETWORK_CODES.has(code);
}

/**
 * Reaches `need` at start: a failure it calls unreachable is logged (WARN, with the wait) and
 * tried again after a backoff, for up to `retry.timeoutMs` from the first attempt, an attempt
 * still going then abandoned. Resolves with the first success.
 * @throws {UnreachableAtStartError} when the time ran out.
 * @throws the stop's reason when `retry.signal` aborted, and any failure that is not `unreachable`, as it is.
 */
export async function reachAtStart<T>(need: StartupNeed<T>, retry: StartupRetry): Promise<T> {
  const { clock, signal } = retry;
  const start = clock.monotonicNow();
  const schedule: BackoffSchedule = { ...START_BACKOFF, deadlineMs: retry.timeoutMs };
  for (let failures = 0; ; failures += 1) {
    let failure: unknown;
    try {
      return await attemptUntil(need, start + retry.timeoutMs, retry);
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      if (!(error instanceof NoAnswerInTime || need.unreachable(error))) throw error;
      failure = error;
    }
    const elapsed = clock.monotonicNow() - start;
    const wait = nextBackoff(schedule, failures, elapsed, retry.random);
    if (wait === undefined) throw new UnreachableAtStartError(need.what, elapsed, failures + 1, retry.timeoutMs, failure);
    retry.logger.warn(
      { target: need.what, attempt: failures + 1, retry_in_ms: wait, cause: failureText(failure) },
      `could not reach ${need.what}: trying again in ${secondsOf(wait)} s (startup_timeout_seconds: ${retry.timeoutMs / 1000})`,
    );
    await clock.sleep(wait, signal);
  }
}

/** One attempt, abandoned (its signal aborted) at `deadline` on the monotonic clock or when the process is stopped. */
function attemptUntil<T>(need: StartupNeed<T>, deadline: number, retry: StartupRetry): Promise<T> {
  const { clock, signal } = retry;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  const abandoned = new AbortController();
  const timer = new AbortController();
  const onStop = (): void => abandoned.abort(abortReason(signal));
  signal.addEventListener('abort', onStop, { once: true });
  // A hanging attempt (discord.js tries an unreachable gateway again and again) is let go at the deadline.
  clock.sleep(deadline - clock.monotonicNow(), timer.signal).then(
    () => abandoned.abort(new NoAnswerInTime()),
    () => undefined,
  );
  const ended = new Promise<never>((_, reject) => abandoned.signal.addEventListener('abort', () => reject(abortReason(abandoned.signal)), { once: true }));
  return Promise.race([need.attempt(abandoned.signal), ended]).finally(() => {
    signal.removeEventListener('abort', onStop);
    timer.abort();
  });
}

function secondsOf(ms: number): string {
  return (ms / 1000).toFixed(ms < 10_000 ? 1 : 0);
}

/** A failure for people: its message, else its code (a connection refused on every address of a host has no message of its own). */
function failureText(error: unknown): string {
  const message = fieldOf(error, 'message');
  if (typeof message === 'string' && message !== '') return message;
  const code = fieldOf(error, 'code');
  return typeof code === 'string' ? code : String(error);
}

function fieldOf(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
