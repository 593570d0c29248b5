import { userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { APPROVALS_ANSWERED } from '../../../src/turn_state/turn_types.js';
import { ManualClock } from '../../support/manual_clock.js';
import { approvalTurn, runCliIn, storeIn, turnWithCalls, type TestCall } from '../../support/operator_cli.js';
import { useTempDir } from '../../support/temp_dir.js';

const TURN = '00000001-aaaa-4000-8000-000000000000';
const OPERATOR = `cli:${userInfo().username}`;
const MINUTE = 60_000;

describe('holdfast turns approve and deny', () => {
  const temp = useTempDir();

  async function asking(calls: readonly TestCall[] = [{ id: 'w1' }]): Promise<ManualClock> {
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    await approvalTurn(store.turns, 'm-1', calls);
    await store.close();
    return clock;
  }

  async function detailOf(clock: ManualClock, turnId = TURN) {
    const store = storeIn(temp.path(), clock);
    const detail = await store.operator.turnDetail(turnId);
    await store.close();
    return detail;
  }

  it('approve records the answer by the user who ran it, and says the running bot goes on with the turn', async () => {
    const clock = await asking();
    await clock.advance(3 * MINUTE);

    const run = await runCliIn(temp.path(), ['turns', 'approve', '00000001', 'w1'], { clock });

    expect(run).toEqual({
      status: 0,
      stderr: '',
      stdout:
        `Recorded: call w1 (save_note) of turn 00000001 approved — APPROVED, by ${OPERATOR}.\n` +
        'Turn 00000001 waits for no more approvals (SUSPENDED): the running bot goes on with it in its channel within seconds.\n',
    });
    const detail = await detailOf(clock);
    expect(detail?.turn).toMatchObject({ status: 'SUSPENDED', suspensionReason: APPROVALS_ANSWERED, resolutionUntold: true });
    expect(detail?.ops[0]).toMatchObject({ state: 'APPROVED', approval: { decision: { verdict: 'approved', by: OPERATOR, at: clock.now(), note: null } } });
  });

  it('deny records the note the model will read, and answers one JSON document with --json', async () => {
    const clock = await asking();

    const run = await runCliIn(temp.path(), ['turns', 'deny', TURN, 'w1', '--note', 'not on a Friday', '--json'], { clock });

    expect(run).toEqual({ status: 0, stderr: '', stdout: `{"turn":"${TURN}","call":"w1","state":"DENIED","remaining":0,"turn_status":"SUSPENDED"}\n` });
    expect((await detailOf(clock))?.ops[0]?.approval?.decision).toMatchObject({ verdict: 'denied', by: OPERATOR, note: 'not on a Friday' });
  });

  it('says which calls still wait, keeps the turn parked until the last is answered, and takes STEP:CALL for an id used in two steps', async () => {
    const clock = await asking([{ id: 'call_0' }, { id: 'call_0', step: 2 }]);

    const ambiguous = await runCliIn(temp.path(), ['turns', 'approve', '00000001', 'call_0'], { clock });
    expect(ambiguous).toEqual({ status: 3, stdout: '', stderr: `holdfast: call_0 occurs in several steps of turn ${TURN}; name one of 1:call_0, 2:call_0\n` });

    const first = await runCliIn(temp.path(), ['turns', 'deny', '00000001', '2:call_0', '--note', 'twice is too many'], { clock });
    expect(first.stdout).toBe(
      `Recorded: call 2:call_0 (save_note) of turn 00000001 denied: twice is too many — DENIED, by ${OPERATOR}.\n` +
        '1 more call(s) of turn 00000001 wait for approval: holdfast turns show 00000001\n',
    );
    expect((await detailOf(clock))?.turn.status).toBe('AWAITING_APPROVAL');
    const last = await runCliIn(temp.path(), ['turns', 'approve', '00000001', '1:call_0', '--json'], { clock });
    expect(JSON.parse(last.stdout)).toEqual({ turn: TURN, call: '1:call_0', state: 'APPROVED', remaining: 0, turn_status: 'SUSPENDED' });
  });

  it('keeps a configured secret out of the note it records', async () => {
    const clock = await asking();
    const config = temp.write('config.yml', 'llm:\n  model: m\n  api_key: ${MODEL_KEY}\n');

    const run = await runCliIn(temp.path(), ['turns', 'deny', '00000001', 'w1', '--note', 'it would leak sk-live-0123456789', '--config', config], {
      clock,
      env: { MODEL_KEY: 'sk-live-0123456789' },
    });

    expect(run.status).toBe(0);
    expect(run.stdout).not.toContain('sk-live-0123456789');
    const note = (await detailOf(clock))?.ops[0]?.approval?.decision?.note;
    expect(note).toMatch(/^it would leak /);
    expect(note).not.toContain('sk-live-0123456789');
  });

  it('exits 3 for a call that does not wait for approval, saying what became of it: answered, denied by timeout, or the state it is in', async () => {
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    await approvalTurn(store.turns, 'm-1', [{ id: 'w1' }]);
    const late = await approvalTurn(store.turns, 'm-2', [{ id: 'w1' }], MINUTE);
    const lease = await turnWithCalls(store.turns, 'm-3', [{ id: 'r1', effect: 'read' }]);
    await clock.advance(2 * MINUTE);
    await store.turns.expireApprovals();
    await store.close();
    await runCliIn(temp.path(), ['turns', 'approve', '00000001', 'w1'], { clock });

    expect(await runCliIn(temp.path(), ['turns', 'deny', '00000001', 'w1'], { clock })).toEqual({
      status: 3,
      stdout: '',
      stderr: `holdfast: call w1 of turn ${TURN} does not wait for approval: it was already approved by ${OPERATOR} at 2026-01-01T00:02:00.000Z (APPROVED)\n`,
    });
    expect(await runCliIn(temp.path(), ['turns', 'approve', late, 'w1'], { clock })).toEqual({
      status: 3,
      stdout: '',
      stderr: `holdfast: call w1 of turn ${late} does not wait for approval: nobody answered in time, so it was denied at 2026-01-01T00:02:00.000Z (DENIED)\n`,
    });
    expect(await runCliIn(temp.path(), ['turns', 'approve', lease.turnId, 'r1'], { clock })).toEqual({
      status: 3,
      stdout: '',
      stderr:
        `holdfast: call r1 of turn ${lease.turnId} does not wait for approval: it is PREPARED, ` +
        'and only a call waiting for approval (AWAITING_APPROVAL) in a turn waiting for it may be answered\n',
    });
    expect((await detailOf(clock))?.ops[0]?.approval?.decision?.verdict).toBe('approved');
  });

  it('exits 3 for a turn or a call that does not exist, and for a prefix that names several turns', async () => {
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    await approvalTurn(store.turns, 'm-1', [{ id: 'w1' }]);
    await approvalTurn(store.turns, 'm-2', [{ id: 'w1' }]);
    await store.close();

    expect(await runCliIn(temp.path(), ['turns', 'approve', 'ffffffff', 'w1'], { clock })).toEqual({ status: 3, stdout: '', stderr: 'holdfast: no turn ffffffff\n' });
    expect(await runCliIn(temp.path(), ['turns', 'deny', '00000001', 'w9'], { clock })).toEqual({ status: 3, stdout: '', stderr: `holdfast: turn ${TURN} has no call w9\n` });
    const several = await runCliIn(temp.path(), ['turns', 'approve', '0000', 'w1'], { clock });
    expect(several.status).toBe(3);
    expect(several.stderr).toMatch(/^holdfast: 0000 names several turns \(00000001-.*, 00000003-.*\); give more of the id\n$/);
    expect((await detailOf(clock))?.ops[0]?.state).toBe('AWAITING_APPROVAL');
  });

  it('exits 2, recording nothing, for a missing call, an option it does not take or a note without its text', async () => {
    const clock = await asking();
    const usage = (command: string, error: string) => ({ status: 2, stdout: '', stderr: `holdfast: ${error}\nTry 'holdfast turns ${command} --help' for the options.\n` });

    expect(await runCliIn(temp.path(), ['turns', 'approve', '00000001'], { clock })).toEqual(usage('approve', 'missing CALL'));
    expect(await runCliIn(temp.path(), ['turns', 'deny', '00000001', 'w1', '--applied'], { clock })).toEqual(usage('deny', "unknown option '--applied'"));
    expect(await runCliIn(temp.path(), ['turns', 'deny', '00000001', 'w1', '--note'], { clock })).toEqual(usage('deny', '--note needs a value'));
    expect(await runCliIn(temp.path(), ['turns', 'approve', '00000001', 'w1', 'now'], { clock })).toEqual(usage('approve', "unexpected argument 'now'"));
    expect((await detailOf(clock))?.ops[0]?.state).toBe('AWAITING_APPROVAL');
  });
});
