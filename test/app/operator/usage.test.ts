import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { UsageOwner, UsageStore } from '../../../src/turn_state/usage_store.js';
import { ManualClock } from '../../support/manual_clock.js';
import { runCliIn, storeIn, storePathIn } from '../../support/operator_cli.js';
import { useTempDir } from '../../support/temp_dir.js';

const DAY = 86_400_000;
/** Noon of the day the reports are read: 2026-01-10 (UTC). */
const READ_AT = Date.UTC(2026, 0, 10, 12);

const ANA: UsageOwner = { source: 'discord', userId: 'ana', channelId: 'general', serverId: 'guild-1' };
const BOB: UsageOwner = { source: 'discord', userId: 'bob', channelId: 'random', serverId: 'guild-1' };
const CAROL: UsageOwner = { source: 'discord', userId: 'carol', channelId: 'dm-carol' };

/** Counts a message of `owner` as a turn and records its model calls, as the bot does. */
async function turnOf(usage: UsageStore, owner: UsageOwner, messageId: string, calls: Parameters<UsageStore['record']>[2]): Promise<void> {
  const identity = { source: owner.source, channelId: owner.channelId, messageId };
  expect(await usage.admit({ identity, owner, limits: [] })).toEqual({ kind: 'counted' });
  await usage.record(identity, owner.userId, calls);
}

/**
 * A store in `cwd` with the usage of three users, written by the store's own code: Carol's turn
 * in a direct message nine days before the report (2026-01-01), Ana's on 2026-01-07, and on the
 * day of the report Ana's again and Bob's — one of his calls reported no tokens and his second
 * message was refused by a limit. The clock ends at {@link READ_AT}.
 */
async function storeWithUsage(cwd: string): Promise<ManualClock> {
  const clock = new ManualClock({ wallStart: READ_AT - 9 * DAY });
  const store = storeIn(cwd, clock);
  const { usage } = store;
  await turnOf(usage, CAROL, 'c-1', [{ model: 'big-model', inputTokens: 5000, outputTokens: 500, cost: 0.05 }]);
  await clock.advance(6 * DAY);
  await turnOf(usage, ANA, 'a-1', [{ model: 'big-model', inputTokens: 1000, outputTokens: 200, cost: 0.012 }]);
  await clock.advance(3 * DAY - 60_000);
  await turnOf(usage, ANA, 'a-2', [{ model: 'fast-model', inputTokens: 300, outputTokens: 50, cachedInputTokens: 200, reasoningTokens: 10, cost: 0.0005 }]);
  await turnOf(usage, BOB, 'b-1', [
    { model: 'fast-model', inputTokens: 100, outputTokens: 20, cost: 0.0001 },
    { model: 'local-model', inputTokens: null, outputTokens: null, cost: null },
  ]);
  const refused = await usage.admit({ identity: { source: 'discord', channelId: BOB.channelId, messageId: 'b-2' }, owner: BOB, limits: [{ scope: 'user', kind: 'turns_per_hour', max: 1 }] });
  expect(refused.kind).toBe('refused');
  await clock.advance(60_000);
  await store.close();
  return clock;
}

describe('holdfast usage', () => {
  const temp = useTempDir();

  it('shows the totals of the last 7 days by default: turns, refusals, calls, tokens and cost, and the calls that reported no tokens', async () => {
    const clock = await storeWithUsage(temp.path());

    const run = await runCliIn(temp.path(), ['usage'], { clock });

    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toBe(
      [
        'Usage over the last 7 days:',
        'TURNS  REFUSED  CALLS  INPUT  CACHED  OUTPUT  REASONING  COST',
        '3      1        4      1400   200     270     10         0.0126',
        '1 call reported no token counts: their tokens are not in these totals.',
        '',
      ].join('\n'),
    );
  });

  it('--by user shows one row per user, largest spender first', async () => {
    const clock = await storeWithUsage(temp.path());

    const run = await runCliIn(temp.path(), ['usage', '--by', 'user'], { clock });

    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toBe(
      [
        'Usage over the last 7 days:',
        'USER  TURNS  REFUSED  CALLS  INPUT  CACHED  OUTPUT  REASONING  COST',
        'ana   2      0        2      1300   200     250     10         0.0125',
        'bob   1      1        2      100    0       20      0          0.0001',
        '1 call reported no token counts: their tokens are not in these totals.',
        '',
      ].join('\n'),
    );
  });

  it('--by model shows one row per model, without turns or refusals, which are counted against owners, not models; an unpriced model’s cost is -', async () => {
    const clock = await storeWithUsage(temp.path());

    const run = await runCliIn(temp.path(), ['usage', '--by', 'model'], { clock });

    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toBe(
      [
        'Usage over the last 7 days:',
        'MODEL        CALLS  INPUT  CACHED  OUTPUT  REASONING  COST',
        'big-model    1      1000   0       200     0          0.0120',
        'fast-model   2      400    200     70      10         0.0006',
        'local-model  1      0      0       0       0          -',
        '1 call reported no token counts: their tokens are not in these totals.',
        '',
      ].join('\n'),
    );
  });

  it('--by model --json prints one JSON document: the period, the grouping and each model’s totals, an unpriced one with a null cost', async () => {
    const clock = await storeWithUsage(temp.path());

    const run = await runCliIn(temp.path(), ['usage', '--by', 'model', '--json'], { clock });

    expect(run).toMatchObject({ status: 0, stderr: '' });
    const counts = { turns: 0, refusals: 0, cached_input_tokens: 0, reasoning_tokens: 0 };
    expect(JSON.parse(run.stdout)).toEqual({
      period: { kind: 'days', days: 7 },
      by: 'model',
      rows: [
        { key: 'big-model', ...counts, calls: 1, unknown_calls: 0, input_tokens: 1000, output_tokens: 200, cost: 0.012 },
        { key: 'fast-model', ...counts, calls: 2, unknown_calls: 0, input_tokens: 400, cached_input_tokens: 200, output_tokens: 70, reasoning_tokens: 10, cost: expect.closeTo(0.0006, 10) as number },
        { key: 'local-model', ...counts, calls: 1, unknown_calls: 1, input_tokens: 0, output_tokens: 0, cost: null },
      ],
    });
  });

  it('--since takes the last N days, today or this month; a user with no server is grouped under -', async () => {
    const clock = await storeWithUsage(temp.path());
    const users = async (...args: string[]) => {
      const run = await runCliIn(temp.path(), ['usage', '--by', 'user', '--json', ...args], { clock });
      expect(run).toMatchObject({ status: 0, stderr: '' });
      return (JSON.parse(run.stdout) as { rows: { key: string; turns: number }[] }).rows.map((row) => [row.key, row.turns]);
    };

    expect(await users('--since', '1d')).toEqual([
      ['ana', 1],
      ['bob', 1],
    ]);
    expect(await users('--since', 'today')).toEqual(await users('--since', '1d'));
    expect(await users('--since', '4d')).toEqual([
      ['ana', 2],
      ['bob', 1],
    ]);
    expect(await users('--since', '10d')).toEqual([
      ['carol', 1],
      ['ana', 2],
      ['bob', 1],
    ]);
    expect(await users('--since', 'month')).toEqual(await users('--since', '10d'));

    const servers = await runCliIn(temp.path(), ['usage', '--by', 'server', '--since', 'month'], { clock });
    expect(servers.stdout).toBe(
      [
        'Usage this month:',
        'SERVER   TURNS  REFUSED  CALLS  INPUT  CACHED  OUTPUT  REASONING  COST',
        '-        1      0        1      5000   0       500     0          0.0500',
        'guild-1  3      1        4      1400   200     270     10         0.0126',
        '1 call reported no token counts: their tokens are not in these totals.',
        '',
      ].join('\n'),
    );
    const today = await runCliIn(temp.path(), ['usage', '--since', 'today', '--by', 'channel'], { clock });
    expect(today.stdout).toMatch(/^Usage today:\nCHANNEL +TURNS/);
  });

  it('says so when no usage was recorded in the period', async () => {
    const clock = new ManualClock({ wallStart: READ_AT });
    await storeIn(temp.path(), clock).close();

    expect(await runCliIn(temp.path(), ['usage'], { clock })).toEqual({ status: 0, stdout: 'No usage was recorded over the last 7 days.\n', stderr: '' });
    expect(await runCliIn(temp.path(), ['usage', '--by', 'user', '--since', 'today'], { clock })).toEqual({ status: 0, stdout: 'No usage was recorded today.\n', stderr: '' });
    expect(await runCliIn(temp.path(), ['usage', '--since', '1d', '--json'], { clock })).toEqual({ status: 0, stdout: '{"period":{"kind":"days","days":1},"by":null,"rows":[]}\n', stderr: '' });
  });

  it('prints the totals as one row keyed null with --json', async () => {
    const clock = await storeWithUsage(temp.path());

    const run = await runCliIn(temp.path(), ['usage', '--since', 'month', '--json'], { clock });

    expect(JSON.parse(run.stdout)).toEqual({
      period: { kind: 'month' },
      by: null,
      rows: [
        {
          key: null,
          turns: 4,
          refusals: 1,
          calls: 5,
          unknown_calls: 1,
          input_tokens: 6400,
          cached_input_tokens: 200,
          output_tokens: 770,
          reasoning_tokens: 10,
          cost: expect.closeTo(0.0626, 10) as number,
        },
      ],
    });
  });

  it.each([
    [['--by', 'guild'], "--by takes user, channel, server, model or day, not 'guild'"],
    [['--since', '2w'], "--since takes Nd (the last N days, today included; N from 1 to 3660), today or month, not '2w'"],
    [['--since', '0d'], "--since takes Nd (the last N days, today included; N from 1 to 3660), today or month, not '0d'"],
    [['--since', '3661d'], "--since takes Nd (the last N days, today included; N from 1 to 3660), today or month, not '3661d'"],
    [['--since', '7'], "--since takes Nd (the last N days, today included; N from 1 to 3660), today or month, not '7'"],
    [['--by'], '--by needs a value'],
    [['users'], "unexpected argument 'users'"],
  ])('%j exits 2 naming the option and what it takes, touching no store', async (args, error) => {
    expect(await runCliIn(temp.path(), ['usage', ...args])).toEqual({ status: 2, stdout: '', stderr: `holdfast: ${error}\nTry 'holdfast usage --help' for the options.\n` });
  });

  it('exits 2 when there is no store file, and 1 naming the cause when the store fails while it is read', async () => {
    const missing = await runCliIn(temp.path(), ['usage']);
    expect(missing).toEqual({
      status: 2,
      stdout: '',
      stderr: `holdfast: the store ${storePathIn(temp.path())} does not exist (the bot creates it at its first start; is this the bot's configuration?)\n`,
    });

    await storeIn(temp.path(), new ManualClock()).close();
    const db = new BetterSqlite3(storePathIn(temp.path()));
    db.exec('DROP TABLE usage_days');
    db.close();
    expect(await runCliIn(temp.path(), ['usage'])).toEqual({ status: 1, stdout: '', stderr: 'holdfast: the turn store failed during report usage: no such table: usage_days\n' });
  });
});
