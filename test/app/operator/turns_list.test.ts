import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { lockStoreFile } from '../../../src/turn_state/sqlite/store_lock.js';
import { ManualClock } from '../../support/manual_clock.js';
import { approvalTurn, parkedTurn, runCliIn, storeIn, storePathIn } from '../../support/operator_cli.js';
import { admissionFor } from '../../support/turn_store.js';
import { useTempDir } from '../../support/temp_dir.js';
import type { TurnStore } from '../../../src/turn_state/turn_store.js';

const MINUTE = 60_000;

async function admitted(turns: TurnStore, messageId: string, channelId = 'channel-1') {
  const admission = await turns.admit(admissionFor(messageId, channelId));
  if (admission.disposition !== 'admitted') throw new Error(`expected ${messageId} to be admitted`);
  return admission.lease;
}

/**
 * A store in `cwd` with a turn in every situation: parked for a verdict (00000001), suspended
 * (00000003), completed with its reply not yet delivered (00000005), completed and delivered
 * (00000007), and running in another channel (00000009). The clock ends 3 minutes after the last.
 */
async function storeWithEveryKindOfTurn(cwd: string, clock: ManualClock): Promise<void> {
  const store = storeIn(cwd, clock);
  await parkedTurn(store.turns, 'm-parked', [{ id: 'w1' }]);
  await clock.advance(2 * 60 * MINUTE);
  await store.turns.suspend(await admitted(store.turns, 'm-suspended'), 'the model provider is overloaded');
  await clock.advance(30 * MINUTE);
  await store.turns.complete(await admitted(store.turns, 'm-pending'), 'Your note is saved.');
  await clock.advance(MINUTE);
  const done = await admitted(store.turns, 'm-done');
  await store.turns.complete(done, 'Done.');
  await store.turns.recordReplyDelivery(done.turnId, { kind: 'delivered', partsDelivered: 1 });
  await admitted(store.turns, 'm-active', 'channel-2');
  await clock.advance(3 * MINUTE);
  await store.close();
}

describe('holdfast turns list', () => {
  const temp = useTempDir();

  it('lists what needs attention by default, newest first: suspended, awaiting a verdict, replies not yet delivered', async () => {
    const clock = new ManualClock();
    await storeWithEveryKindOfTurn(temp.path(), clock);

    const run = await runCliIn(temp.path(), ['turns', 'list'], { clock });

    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toBe(
      [
        'TURN      STATUS               CHANNEL            REQUESTER  AGE  AWAITING  APPROVALS  REASON',
        '00000005  TERMINAL_COMPLETED   console:channel-1  user-1     4m   0         0          reply not yet delivered',
        '00000003  SUSPENDED            console:channel-1  user-1     34m  0         0          the model provider is overloaded',
        '00000001  AWAITING_RESOLUTION  console:channel-1  user-1     2h   1         0          an uncertain call awaits an operator’s verdict',
        '',
      ].join('\n'),
    );
  });

  it('prints one JSON document with --json: each turn with its status, channel, requester, age, reason, calls awaiting a verdict and reply', async () => {
    const clock = new ManualClock();
    await storeWithEveryKindOfTurn(temp.path(), clock);

    const run = await runCliIn(temp.path(), ['turns', 'list', '--json'], { clock });

    expect(run.status).toBe(0);
    const { turns } = JSON.parse(run.stdout) as { turns: Record<string, unknown>[] };
    expect(turns.map((turn) => turn['short_id'])).toEqual(['00000005', '00000003', '00000001']);
    expect(turns[2]).toEqual({
      id: '00000001-aaaa-4000-8000-000000000000',
      short_id: '00000001',
      status: 'AWAITING_RESOLUTION',
      source: 'console',
      channel: 'channel-1',
      message: 'm-parked',
      requester: 'user-1',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      last_progress_at: '2026-01-01T00:00:00.000Z',
      age_seconds: (2 * 60 + 34) * 60,
      generation: 1,
      reason: 'an uncertain call awaits an operator’s verdict',
      calls_awaiting_verdict: 1,
      calls_awaiting_approval: 0,
      reply: null,
    });
    expect(turns[0]).toMatchObject({ status: 'TERMINAL_COMPLETED', reason: null, calls_awaiting_verdict: 0, calls_awaiting_approval: 0, reply: 'pending' });
  });

  it('lists a turn waiting for approval by default, with how many of its calls wait, and finds it by --status awaiting_approval', async () => {
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    await approvalTurn(store.turns, 'm-asking', [{ id: 'w1' }, { id: 'w2' }]);
    await admitted(store.turns, 'm-active');
    await clock.advance(5 * MINUTE);
    await store.close();

    const run = await runCliIn(temp.path(), ['turns', 'list'], { clock });

    expect(run.stdout).toBe(
      [
        'TURN      STATUS             CHANNEL            REQUESTER  AGE  AWAITING  APPROVALS  REASON',
        '00000001  AWAITING_APPROVAL  console:channel-1  user-1     5m   0         2          awaiting approval',
        '',
      ].join('\n'),
    );
    const json = await runCliIn(temp.path(), ['turns', 'list', '--status', 'awaiting_approval', '--json'], { clock });
    expect((JSON.parse(json.stdout) as { turns: unknown[] }).turns).toEqual([
      expect.objectContaining({ short_id: '00000001', status: 'AWAITING_APPROVAL', calls_awaiting_verdict: 0, calls_awaiting_approval: 2, reason: 'awaiting approval' }),
    ]);
  });

  it('--status takes statuses in any case, short names, repeated or comma-separated; --channel narrows to one channel', async () => {
    const clock = new ManualClock();
    await storeWithEveryKindOfTurn(temp.path(), clock);
    const listed = async (...args: string[]) => {
      const run = await runCliIn(temp.path(), ['turns', 'list', '--json', ...args], { clock });
      expect(run.stderr).toBe('');
      return (JSON.parse(run.stdout) as { turns: { short_id: string }[] }).turns.map((turn) => turn.short_id);
    };

    expect(await listed('--status', 'completed')).toEqual(['00000007', '00000005']);
    expect(await listed('--status', 'Active,suspended')).toEqual(['00000009', '00000003']);
    expect(await listed('--status', 'awaiting_resolution', '--status', 'TERMINAL_COMPLETED')).toEqual(['00000007', '00000005', '00000001']);
    expect(await listed('--channel', 'channel-2', '--status', 'active')).toEqual(['00000009']);
    expect(await listed('--channel', 'channel-2')).toEqual([]);
  });

  it('says so when nothing needs attention', async () => {
    const clock = new ManualClock();
    await storeIn(temp.path(), clock).close();

    expect(await runCliIn(temp.path(), ['turns', 'list'], { clock })).toEqual({ status: 0, stdout: 'No turn needs attention.\n', stderr: '' });
    expect(await runCliIn(temp.path(), ['turns', 'list', '--status', 'failed'], { clock })).toEqual({ status: 0, stdout: 'No turn matches.\n', stderr: '' });
    expect(await runCliIn(temp.path(), ['turns', 'list', '--json'], { clock })).toEqual({ status: 0, stdout: '{"turns":[]}\n', stderr: '' });
  });

  it('works while a bot process holds the store, and sweeps nothing: a running turn stays ACTIVE', async () => {
    const clock = new ManualClock();
    await storeWithEveryKindOfTurn(temp.path(), clock);
    const lock = lockStoreFile(storePathIn(temp.path()), clock.now());
    try {
      const run = await runCliIn(temp.path(), ['turns', 'list', '--status', 'active'], { clock });
      expect(run.status).toBe(0);
      expect(run.stdout).toContain('00000009  ACTIVE');
    } finally {
      lock.release();
    }
    const store = storeIn(temp.path(), clock);
    expect(await store.turns.getTurn('00000009-aaaa-4000-8000-000000000000')).toMatchObject({ status: 'ACTIVE' });
    await store.close();
  });

  it('exits 2 naming the valid statuses for an unknown one', async () => {
    const run = await runCliIn(temp.path(), ['turns', 'list', '--status', 'paused']);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      "holdfast: unknown status 'paused' (expected one of active, suspended, awaiting_resolution, awaiting_approval, " +
        'terminal_completed, terminal_failed, terminal_cancelled, terminal_rejected, terminal_expired, completed, ' +
        "failed, cancelled, rejected, expired)\nTry 'holdfast turns list --help' for the options.\n",
    );
  });

  it('exits 2 naming the store file when it does not exist, and does not create it', async () => {
    const run = await runCliIn(temp.path(), ['turns', 'list']);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(`holdfast: the store ${storePathIn(temp.path())} does not exist (the bot creates it at its first start; is this the bot's configuration?)\n`);
    expect(run.stdout).toBe('');
    expect(existsSync(join(temp.path(), 'data'))).toBe(false);
  });

  it('exits 2 when the configuration keeps no store', async () => {
    const config = temp.write('config.yml', 'turn_state:\n  enabled: false\n');
    const run = await runCliIn(temp.path(), ['turns', 'list', '--config', config]);
    expect(run).toEqual({ status: 2, stdout: '', stderr: 'holdfast: turn_state.enabled is false in the configuration: there is no store\n' });
  });

  it('exits 1 naming the cause when the store file is not a database, or fails while it is read', async () => {
    const path = storePathIn(temp.path());
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, 'not a database '.repeat(500));
    const damaged = await runCliIn(temp.path(), ['turns', 'list']);
    expect(damaged.status).toBe(1);
    expect(damaged.stderr).toMatch(/^holdfast: the store .*turns\.sqlite3 cannot be used: .+\n$/);

    rmSync(dirname(path), { recursive: true });
    await storeIn(temp.path(), new ManualClock()).close();
    const db = new BetterSqlite3(path);
    db.exec('DROP TABLE replies');
    db.close();
    const failing = await runCliIn(temp.path(), ['turns', 'list']);
    expect(failing).toEqual({ status: 1, stdout: '', stderr: 'holdfast: the turn store failed during list turns: no such table: replies\n' });
  });

  it('reads the store the configuration names', async () => {
    const clock = new ManualClock();
    await storeWithEveryKindOfTurn(join(temp.path(), 'elsewhere'), clock);
    const config = temp.write('config.yml', 'turn_state:\n  db_path: elsewhere/data/turn_state/turns.sqlite3\n');
    const run = await runCliIn(temp.path(), ['turns', 'list', '--status', 'active', '--config', config], { clock });
    expect(run.stdout).toContain('00000009  ACTIVE');
  });
});
