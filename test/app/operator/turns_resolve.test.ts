import { userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual_clock.js';
import { parkedTurn, runCliIn, storeIn, turnWithCalls, type TestCall } from '../../support/operator_cli.js';
import { useTempDir } from '../../support/temp_dir.js';

const TURN = '00000001-aaaa-4000-8000-000000000000';
const OPERATOR = `cli:${userInfo().username}`;

describe('holdfast turns resolve', () => {
  const temp = useTempDir();

  async function parked(calls: readonly TestCall[] = [{ id: 'w1' }]): Promise<ManualClock> {
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    await parkedTurn(store.turns, 'm-1', calls);
    await store.close();
    return clock;
  }

  async function opsOf(clock: ManualClock) {
    const store = storeIn(temp.path(), clock);
    const detail = await store.operator.turnDetail(TURN);
    await store.close();
    return detail;
  }

  it('records --applied with its result, by the user who ran it, and says the turn is resumable and its requester will be told', async () => {
    const clock = await parked();
    await clock.advance(120_000);

    const run = await runCliIn(temp.path(), ['turns', 'resolve', '00000001', 'w1', '--applied', '--result', 'T-42'], { clock });

    expect(run).toEqual({
      status: 0,
      stderr: '',
      stdout:
        `Recorded: call w1 (save_note) of turn 00000001 took effect: T-42 — RESOLVED_APPLIED, by ${OPERATOR}.\nTurn ` +
        `00000001 awaits no more verdicts and is resumable (SUSPENDED): the running bot tells the requester and goes ` +
        `on with it, by itself or at their \`resume\`.\n`,
    });
    const detail = await opsOf(clock);
    expect(detail?.turn).toMatchObject({ status: 'SUSPENDED', resolutionUntold: true });
    expect(detail?.ops[0]).toMatchObject({ state: 'RESOLVED_APPLIED', verdict: { by: OPERATOR, at: clock.now(), text: 'T-42' } });
  });

  it('records --not-applied with its note and answers one JSON document with --json', async () => {
    const clock = await parked();

    const run = await runCliIn(temp.path(), ['turns', 'resolve', TURN, 'w1', '--not-applied', '--note', 'no such note', '--json'], { clock });

    expect(run).toEqual({ status: 0, stderr: '', stdout: `{"turn":"${TURN}","call":"w1","state":"RESOLVED_NOT_APPLIED","remaining":0,"turn_status":"SUSPENDED"}\n` });
    expect((await opsOf(clock))?.ops[0]).toMatchObject({ state: 'RESOLVED_NOT_APPLIED', verdict: { text: 'no such note' } });
  });

  it('records a verdict without a text, and says which calls still await one', async () => {
    const clock = await parked([{ id: 'w1' }, { id: 'w2' }]);

    const first = await runCliIn(temp.path(), ['turns', 'resolve', '00000001', 'w2', '--applied'], { clock });

    expect(first.stdout).toBe(
      `Recorded: call w2 (save_note) of turn 00000001 took effect — RESOLVED_APPLIED, by ${OPERATOR}.\n1 more call(s) of turn 00000001 await a verdict: holdfast turns show 00000001\n`,
    );
    expect((await opsOf(clock))?.turn.status).toBe('AWAITING_RESOLUTION');
    const last = await runCliIn(temp.path(), ['turns', 'resolve', '00000001', 'w1', '--not-applied', '--json'], { clock });
    expect(JSON.parse(last.stdout)).toMatchObject({ remaining: 0, turn_status: 'SUSPENDED' });
  });

  it('keeps a configured secret out of the verdict it records', async () => {
    const clock = await parked();
    const config = temp.write('config.yml', 'llm:\n  model: m\n  api_key: ${MODEL_KEY}\n');

    const run = await runCliIn(temp.path(), ['turns', 'resolve', '00000001', 'w1', '--applied', '--result', 'made with sk-live-0123456789', '--config', config], {
      clock,
      env: { MODEL_KEY: 'sk-live-0123456789' },
    });

    expect(run.status).toBe(0);
    expect(run.stdout).not.toContain('sk-live-0123456789');
    const verdict = (await opsOf(clock))?.ops[0]?.verdict;
    expect(verdict?.text).toMatch(/^made with /);
    expect(verdict?.text).not.toContain('sk-live-0123456789');
  });

  it('takes STEP:CALL for a call id used in two steps, and exits 3 naming both when given the bare id', async () => {
    const clock = await parked([{ id: 'call_0' }, { id: 'call_0', step: 2 }]);

    const ambiguous = await runCliIn(temp.path(), ['turns', 'resolve', '00000001', 'call_0', '--applied'], { clock });
    expect(ambiguous).toEqual({ status: 3, stdout: '', stderr: `holdfast: call_0 occurs in several steps of turn ${TURN}; name one of 1:call_0, 2:call_0\n` });

    const run = await runCliIn(temp.path(), ['turns', 'resolve', '00000001', '2:call_0', '--applied', '--json'], { clock });
    expect(JSON.parse(run.stdout)).toEqual({ turn: TURN, call: '2:call_0', state: 'RESOLVED_APPLIED', remaining: 1, turn_status: 'AWAITING_RESOLUTION' });
  });

  it('exits 3 for a verdict that is not allowed: a second one, or one on a call that awaits none', async () => {
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    await parkedTurn(store.turns, 'm-1', [{ id: 'w1' }]);
    const lease = await turnWithCalls(store.turns, 'm-2', [{ id: 'r1', effect: 'read' }]);
    await store.close();
    await runCliIn(temp.path(), ['turns', 'resolve', '00000001', 'w1', '--applied'], { clock });

    expect(await runCliIn(temp.path(), ['turns', 'resolve', '00000001', 'w1', '--not-applied'], { clock })).toEqual({
      status: 3,
      stdout: '',
      stderr: `holdfast: call w1 of turn ${TURN} takes no verdict: it already has a verdict (RESOLVED_APPLIED)\n`,
    });
    expect(await runCliIn(temp.path(), ['turns', 'resolve', lease.turnId, 'r1', '--applied'], { clock })).toEqual({
      status: 3,
      stdout: '',
      stderr: `holdfast: call r1 of turn ${lease.turnId} takes no verdict: it is PREPARED, and only a call awaiting a verdict (MANUAL_RESOLUTION_REQUIRED) may get one\n`,
    });
  });

  it('exits 3 for a turn or a call that does not exist, and for a prefix that names several turns', async () => {
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    await parkedTurn(store.turns, 'm-1', [{ id: 'w1' }]);
    await parkedTurn(store.turns, 'm-2', [{ id: 'w1' }]);
    await store.close();

    expect(await runCliIn(temp.path(), ['turns', 'resolve', 'ffffffff', 'w1', '--applied'], { clock })).toEqual({ status: 3, stdout: '', stderr: 'holdfast: no turn ffffffff\n' });
    expect(await runCliIn(temp.path(), ['turns', 'resolve', '00000001', 'w9', '--applied'], { clock })).toEqual({ status: 3, stdout: '', stderr: `holdfast: turn ${TURN} has no call w9\n` });
    const ambiguous = await runCliIn(temp.path(), ['turns', 'resolve', '0000', 'w1', '--applied'], { clock });
    expect(ambiguous.status).toBe(3);
    expect(ambiguous.stderr).toMatch(/^holdfast: 0000 names several turns \(00000001-.*, 00000003-.*\); give more of the id\n$/);
    expect((await opsOf(clock))?.ops[0]?.state).toBe('MANUAL_RESOLUTION_REQUIRED');
  });

  it('exits 2, recording nothing, unless given exactly one verdict with the text that belongs to it', async () => {
    const clock = await parked();
    const usage = (error: string) => ({ status: 2, stdout: '', stderr: `holdfast: ${error}\nTry 'holdfast turns resolve --help' for the options.\n` });
    const resolve = (...args: string[]) => runCliIn(temp.path(), ['turns', 'resolve', ...args], { clock });

    expect(await resolve('00000001', 'w1')).toEqual(usage('give exactly one of --applied and --not-applied'));
    expect(await resolve('00000001', 'w1', '--applied', '--not-applied')).toEqual(usage('give exactly one of --applied and --not-applied'));
    expect(await resolve('00000001', 'w1', '--applied', '--note', 'x')).toEqual(usage('--note goes with --not-applied; with --applied, give --result'));
    expect(await resolve('00000001', 'w1', '--not-applied', '--result', 'x')).toEqual(usage('--result goes with --applied; with --not-applied, give --note'));
    expect(await resolve('00000001', '--applied')).toEqual(usage('missing CALL'));
    expect(await resolve('00000001', 'w1', '--applied', '--result')).toEqual(usage('--result needs a value'));
    expect(await resolve('00000001', 'w1', '--applied', '--result', 'a', '--result', 'b')).toEqual(usage('--result is given more than once'));
    expect((await opsOf(clock))?.ops[0]?.state).toBe('MANUAL_RESOLUTION_REQUIRED');
  });

  it('takes a result that starts with a dash', async () => {
    const clock = await parked();
    const run = await runCliIn(temp.path(), ['turns', 'resolve', '00000001', 'w1', '--applied', '--result', '-5 credits', '--json'], { clock });
    expect(run.status).toBe(0);
    expect((await opsOf(clock))?.ops[0]?.verdict?.text).toBe('-5 credits');
  });
});
