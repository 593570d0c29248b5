import { DiscordAPIError, HTTPError } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual_clock.js';
import { isRefusedByDiscord, withDiscordRetry } from '../../src/discord/discord_retry.js';

const serverError = (): HTTPError => new HTTPError(500, 'Internal Server Error', 'POST', 'https://discord.test/api/v10/channels/1/messages', { body: undefined, files: undefined });
const refused = (status: number, code: number): DiscordAPIError =>
  new DiscordAPIError({ message: 'Missing Access', code }, code, status, 'POST', 'https://discord.test/api/v10/channels/1/messages', { body: undefined, files: undefined });

/** An attempt that fails with the listed errors, in order, then answers `ok`; counts its calls. */
function flaky(...failures: Error[]): { attempt: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    attempt: () => {
      const failure = failures[calls];
      calls += 1;
      return failure === undefined ? Promise.resolve('ok') : Promise.reject(failure);
    },
    calls: () => calls,
  };
}

describe('trying Discord again', () => {
  it('tells a refusal (4xx but 429) from a failure Discord may recover from', () => {
    expect(isRefusedByDiscord(refused(403, 50001))).toBe(true);
    expect(isRefusedByDiscord(refused(404, 10003))).toBe(true);
    expect(isRefusedByDiscord(refused(429, 0))).toBe(false);
    expect(isRefusedByDiscord(serverError())).toBe(false);
    expect(isRefusedByDiscord(new TypeError('fetch failed'))).toBe(false);
  });

  it('waits 1 s, 2 s, 4 s between attempts after 5xx answers and lost connections, then succeeds', async () => {
    const clock = new ManualClock();
    const target = flaky(serverError(), new TypeError('fetch failed'), serverError());
    const done = withDiscordRetry({ clock, backoffMs: 1_000, deadlineMs: 60_000, signal: new AbortController().signal }, target.attempt);
    const waits: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      await clock.whenSleeping();
      waits.push(await clock.advanceToNextWake());
    }
    expect(await done).toBe('ok');
    expect(waits).toEqual([1_000, 2_000, 4_000]);
    expect(target.calls()).toBe(4);
  });

  it('throws a refusal at once, without waiting', async () => {
    const clock = new ManualClock();
    const target = flaky(refused(403, 50001));
    await expect(withDiscordRetry({ clock, backoffMs: 1_000, deadlineMs: 60_000, signal: new AbortController().signal }, target.attempt)).rejects.toMatchObject({ status: 403 });
    expect(target.calls()).toBe(1);
  });

  it('gives up with the last failure when the next wait would pass the deadline', async () => {
    const clock = new ManualClock();
    const target = flaky(serverError(), serverError(), serverError(), serverError());
    const done = withDiscordRetry({ clock, backoffMs: 1_000, deadlineMs: 3_500, signal: new AbortController().signal }, target.attempt);
    const rejected = expect(done).rejects.toBeInstanceOf(HTTPError);
    await clock.whenSleeping();
    await clock.advanceToNextWake();
    await clock.whenSleeping();
    await clock.advanceToNextWake();
    await rejected;
    expect(target.calls()).toBe(3);
  });

  it('stops waiting when the bot shuts down, with the failure that made it wait', async () => {
    const clock = new ManualClock();
    const stopping = new AbortController();
    const target = flaky(serverError());
    const done = withDiscordRetry({ clock, backoffMs: 1_000, deadlineMs: 60_000, signal: stopping.signal }, target.attempt);
    await clock.whenSleeping();
    stopping.abort();
    await expect(done).rejects.toBeInstanceOf(HTTPError);
    expect(target.calls()).toBe(1);
  });
});
