import { describe, expect, it } from 'vitest';
import { isNetworkFailure, isUnreachableAtStart, reachAtStart, type StartupNeed, type StartupRetry } from '../../src/core/start_retries.js';
import { LEVEL, LogLines } from '../support/log_lines.js';
import { ManualClock } from '../support/manual_clock.js';
import { SequenceRandom } from '../support/sequence_random.js';

const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

/** The retry policy on a manual clock, each wait half of its ceiling, stopped by the returned controller. */
function policy(timeoutMs: number): { retry: StartupRetry; clock: ManualClock; logs: LogLines; stop: AbortController } {
  const clock = new ManualClock();
  const logs = new LogLines('info');
  const stop = new AbortController();
  return { retry: { clock, random: new SequenceRandom([0.5]), logger: logs.logger, timeoutMs, signal: stop.signal }, clock, logs, stop };
}

describe('reaching what the start needs', () => {
  it('tries an unreachable server again after growing waits, logging each, and resolves with the first success', async () => {
    const { retry, clock, logs } = policy(60_000);
    let attempts = 0;
    const need: StartupNeed<string> = { what: 'the server', attempt: () => (++attempts < 3 ? Promise.reject(refused()) : Promise.resolve('up')), unreachable: isNetworkFailure };
    const reached = reachAtStart(need, retry);
    await logs.whenMessage('could not reach the server: trying again in 0.5 s (startup_timeout_seconds: 60)');
    await clock.advance(500);
    await logs.whenMessage('could not reach the server: trying again in 1.0 s (startup_timeout_seconds: 60)');
    await clock.advance(1_000);

    expect(await reached).toBe('up');
    expect(logs.lines.map((line) => [line.level, line.msg, line['retry_in_ms'], line['cause']])).toEqual([
      [LEVEL.warn, 'could not reach the server: trying again in 0.5 s (startup_timeout_seconds: 60)', 500, 'connect ECONNREFUSED 127.0.0.1:5432'],
      [LEVEL.warn, 'could not reach the server: trying again in 1.0 s (startup_timeout_seconds: 60)', 1_000, 'connect ECONNREFUSED 127.0.0.1:5432'],
    ]);
  });

  it('gives up when the next wait would end past the timeout, saying what, how long and how many attempts', async () => {
    const { retry, clock, logs } = policy(2_000);
    const reached = reachAtStart({ what: 'the server', attempt: () => Promise.reject(refused()), unreachable: isNetworkFailure }, retry).catch((error: unknown) => error);
    await logs.whenMessage('could not reach the server: trying again in 0.5 s (startup_timeout_seconds: 2)');
    await clock.advance(500);
    await logs.whenMessage('could not reach the server: trying again in 1.0 s (startup_timeout_seconds: 2)');
    await clock.advance(1_000);

    const error = await reached;
    expect(isUnreachableAtStart(error)).toBe(true);
    expect(error).toMatchObject({ what: 'the server', waitedMs: 1_500, attempts: 3, timeoutMs: 2_000 });
    expect((error as Error).message).toBe('could not reach the server for 1.5 s (3 attempts; startup_timeout_seconds: 2): connect ECONNREFUSED 127.0.0.1:5432');
  });

  it('abandons an attempt that hangs at the timeout, aborting its signal', async () => {
    const { retry, clock } = policy(10_000);
    let abandoned: AbortSignal | undefined;
    const hangs = (signal: AbortSignal): Promise<never> => {
      abandoned = signal;
      return new Promise<never>(() => undefined);
    };
    const reached = reachAtStart({ what: 'the gateway', attempt: hangs, unreachable: () => false }, retry).catch((error: unknown) => error);
    await clock.whenSleeping();
    await clock.advance(10_000);

    expect(await reached).toMatchObject({ name: 'UnreachableAtStartError', attempts: 1, message: 'could not reach the gateway for 10 s (1 attempt; startup_timeout_seconds: 10): no answer in time' });
    expect(abandoned?.aborted).toBe(true);
  });

  it('ends the wait at once when stopped, with the stop’s reason, and aborts an attempt under way', async () => {
    const waiting = policy(60_000);
    const reached = reachAtStart({ what: 'the server', attempt: () => Promise.reject(refused()), unreachable: isNetworkFailure }, waiting.retry).catch((error: unknown) => error);
    await waiting.clock.whenSleeping();
    const reason = new Error('SIGTERM');
    waiting.stop.abort(reason);
    expect(await reached).toBe(reason);

    const attempting = policy(60_000);
    let abandoned: AbortSignal | undefined;
    const hanging = reachAtStart(
      {
        what: 'the gateway',
        attempt: (signal) => {
          abandoned = signal;
          return new Promise<never>(() => undefined);
        },
        unreachable: () => true,
      },
      attempting.retry,
    ).catch((error: unknown) => error);
    attempting.stop.abort(reason);
    expect(await hanging).toBe(reason);
    expect(abandoned?.aborted).toBe(true);
  });

  it('throws a failure that is not one of reaching the server at once, as it is', async () => {
    const { retry, logs } = policy(60_000);
    const denied = Object.assign(new Error('password authentication failed'), { code: '28P01' });
    await expect(reachAtStart({ what: 'the database', attempt: () => Promise.reject(denied), unreachable: isNetworkFailure }, retry)).rejects.toBe(denied);
    expect(logs.lines).toEqual([]);
  });

  it('calls refused, reset, unresolved and timed-out connections network failures, by their code or their cause’s', () => {
    expect(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT'].map((code) => isNetworkFailure(Object.assign(new Error(), { code })))).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(isNetworkFailure(new TypeError('fetch failed', { cause: refused() }))).toBe(true);
    expect([isNetworkFailure(Object.assign(new Error(), { code: '28P01' })), isNetworkFailure(new Error('ECONNREFUSED')), isNetworkFailure(undefined)]).toEqual([false, false, false]);
  });
});
