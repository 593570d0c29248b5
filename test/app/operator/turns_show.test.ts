import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual_clock.js';
import { approvalTurn, parkedTurn, runCliIn, storeIn, turnWithCalls } from '../../support/operator_cli.js';
import { useTempDir } from '../../support/temp_dir.js';
import { admissionFor } from '../../support/turn_store.js';

const MINUTE = 60_000;

describe('holdfast turns show', () => {
  const temp = useTempDir();

  it('shows the turn, its ledger with each call’s input, state and error, and how to give the verdict it awaits', async () => {
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    const turnId = await parkedTurn(store.turns, 'm-1', [{ id: 'w1', input: { text: 'buy \u001b[31mmilk' } }]);
    await store.close();
    await clock.advance(5 * MINUTE);

    const run = await runCliIn(temp.path(), ['turns', 'show', '00000001'], { clock });

    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toBe(
      [
        `Turn ${turnId}`,
        '  status    AWAITING_RESOLUTION',
        '  channel   console:channel-1',
        '  message   m-1',
        '  requester user-1',
        '  created   2026-01-01T00:00:00.000Z (5m ago)',
        '  updated   2026-01-01T00:00:00.000Z',
        '  reason    an uncertain call awaits an operator’s verdict',
        '',
        'Calls:',
        'STEP  CALL  TOOL       EFFECT  STATE',
        '1     w1    save_note  write   MANUAL_RESOLUTION_REQUIRED',
        '',
        'w1 (step 1):',
        '  input: {"text":"buy \\u001b[31mmilk"}',
        '  error: the process stopped while the call ran',
        '',
        'Reply: none',
        '',
        'Record a verdict: holdfast turns resolve 00000001 w1 --applied [--result TEXT] | --not-applied [--note TEXT]',
        '',
      ].join('\n'),
    );
  });

  it('prints one JSON document with --json: the turn, its calls with their verdicts, and its reply', async () => {
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    const lease = await turnWithCalls(store.turns, 'm-1', [{ id: 'r1', tool: 'lookup', effect: 'read', input: { q: 'milk' } }]);
    const key = { turnId: lease.turnId, step: 1, toolCallId: 'r1' };
    await store.turns.moveOp(lease, key, { to: 'RUNNING' });
    await store.turns.moveOp(lease, key, { to: 'APPLIED', result: 'milk is in aisle 3' });
    await clock.advance(20_000);
    await store.turns.complete(lease, 'Aisle 3.');
    await store.close();

    const run = await runCliIn(temp.path(), ['turns', 'show', lease.turnId, '--json'], { clock });

    expect(run.status).toBe(0);
    const document = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(document['turn']).toMatchObject({
      id: lease.turnId,
      short_id: '00000001',
      status: 'TERMINAL_COMPLETED',
      age_seconds: 20,
      calls_awaiting_verdict: 0,
      calls_awaiting_approval: 0,
      reason: null,
    });
    expect(document['calls']).toEqual([
      {
        step: 1,
        call: 'r1',
        label: 'r1',
        tool: 'lookup',
        effect: 'read',
        state: 'APPLIED',
        input: { q: 'milk' },
        input_redacted: false,
        result: 'milk is in aisle 3',
        error: null,
        verdict: null,
        approval: null,
      },
    ]);
    expect(document['reply']).toEqual({ state: 'pending', parts_delivered: 0, created_at: '2026-01-01T00:00:20.000Z', delivered_at: null, failure: null });
  });

  it('shows each call’s request for approval: when it was asked, until when it waits or who answered, when and why, and how to answer', async () => {
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    const turnId = await approvalTurn(store.turns, 'm-1', [{ id: 'w1' }, { id: 'w2' }], 60 * MINUTE);
    await clock.advance(2 * MINUTE);
    await store.operator.answerApproval({ call: { turnId, step: 1, toolCallId: 'w1' }, verdict: 'denied', by: 'discord:900', note: 'not the whole list' });
    await store.close();

    const run = await runCliIn(temp.path(), ['turns', 'show', '00000001'], { clock });

    expect(run.stdout).toContain(
      [
        'STEP  CALL  TOOL       EFFECT  STATE',
        '1     w1    save_note  write   DENIED',
        '1     w2    save_note  write   AWAITING_APPROVAL',
        '',
        'w1 (step 1):',
        '  input: {"text":"buy milk"}',
        '  approval: asked 2026-01-01T00:00:00.000Z, denied by discord:900 at 2026-01-01T00:02:00.000Z: not the whole list',
        'w2 (step 1):',
        '  input: {"text":"buy milk"}',
        '  approval: asked 2026-01-01T00:00:00.000Z, waits until 2026-01-01T01:00:00.000Z',
        '',
      ].join('\n'),
    );
    expect(run.stdout).toMatch(/\nAnswer the request for approval: holdfast turns approve 00000001 w2 \[--note TEXT\] \| holdfast turns deny 00000001 w2 \[--note TEXT\]\n$/);

    const json = JSON.parse((await runCliIn(temp.path(), ['turns', 'show', '00000001', '--json'], { clock })).stdout) as { turn: unknown; calls: { approval: unknown }[] };
    expect(json.turn).toMatchObject({ status: 'AWAITING_APPROVAL', calls_awaiting_verdict: 0, calls_awaiting_approval: 1 });
    expect(json.calls.map((call) => call.approval)).toEqual([
      {
        requested_at: '2026-01-01T00:00:00.000Z',
        expires_at: '2026-01-01T01:00:00.000Z',
        message: null,
        answer: { verdict: 'denied', by: 'discord:900', at: '2026-01-01T00:02:00.000Z', note: 'not the whole list' },
      },
      { requested_at: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-01T01:00:00.000Z', message: null, answer: null },
    ]);
  });

  it('prints a tool’s result on one line without the terminal escape sequences it holds, and cuts a long one short', async () => {
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    const lease = await turnWithCalls(store.turns, 'm-1', [
      { id: 'r1', tool: 'lookup', effect: 'read' },
      { id: 'r2', tool: 'lookup', effect: 'read' },
    ]);
    for (const [call, result] of [
      ['r1', 'aisle\u001b[2J 3\nnext to the bread'],
      ['r2', 'x'.repeat(1_000)],
    ] as const) {
      const key = { turnId: lease.turnId, step: 1, toolCallId: call };
      await store.turns.moveOp(lease, key, { to: 'RUNNING' });
      await store.turns.moveOp(lease, key, { to: 'APPLIED', result });
    }
    await store.close();

    const run = await runCliIn(temp.path(), ['turns', 'show', '00000001'], { clock });

    expect(run.stdout).toContain('  result: aisle 3 next to the bread\n');
    expect(run.stdout).toContain(`  result: ${'x'.repeat(400)}… (600 more characters; --json shows all)\n`);
  });

  it('gives the reason a turn stands where it does: not a suspension it has since come back from', async () => {
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    const lease = await turnWithCalls(store.turns, 'm-1', []);
    await store.turns.suspend(lease, 'the model provider is overloaded');
    const claim = await store.turns.claimResume(lease.turnId, lease.generation);
    if (!claim.won) throw new Error('the resume was not won');
    await store.turns.complete(claim.lease, 'Done.');
    await store.close();

    const run = await runCliIn(temp.path(), ['turns', 'show', '00000001'], { clock });

    expect(run.stdout).toContain('  status    TERMINAL_COMPLETED\n');
    expect(run.stdout).toContain('  reason    -\n');
  });

  it('names a call whose id occurs in two steps as STEP:CALL', async () => {
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    await parkedTurn(store.turns, 'm-1', [{ id: 'call_0' }, { id: 'call_0', step: 2 }]);
    await store.close();

    const run = await runCliIn(temp.path(), ['turns', 'show', '00000001'], { clock });

    expect(run.stdout).toContain('1     1:call_0  save_note  write   MANUAL_RESOLUTION_REQUIRED\n2     2:call_0  save_note  write   MANUAL_RESOLUTION_REQUIRED\n');
    expect(run.stdout).toContain('holdfast turns resolve 00000001 2:call_0 --applied');
  });

  it('exits 3 for a turn that does not exist and for a prefix that names several', async () => {
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    await parkedTurn(store.turns, 'm-1', [{ id: 'w1' }]);
    await parkedTurn(store.turns, 'm-2', [{ id: 'w1' }]);
    await store.close();

    expect(await runCliIn(temp.path(), ['turns', 'show', 'ffffffff'], { clock })).toEqual({ status: 3, stdout: '', stderr: 'holdfast: no turn ffffffff\n' });
    const ambiguous = await runCliIn(temp.path(), ['turns', 'show', '0000000'], { clock });
    expect(ambiguous.status).toBe(3);
    expect(ambiguous.stderr).toBe('holdfast: 0000000 names several turns (00000001-aaaa-4000-8000-000000000000, 00000003-aaaa-4000-8000-000000000000); give more of the id\n');
  });

  it('exits 2 without a turn to show', async () => {
    expect(await runCliIn(temp.path(), ['turns', 'show'])).toEqual({ status: 2, stdout: '', stderr: "holdfast: missing TURN\nTry 'holdfast turns show --help' for the options.\n" });
  });

  it('names the trace of each traced run of the turn, oldest first, as a trace viewer finds them', async () => {
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    const admission = await store.turns.admit({ ...admissionFor('m-1'), trace: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    if (admission.disposition !== 'admitted') throw new Error(`expected admission, got ${admission.disposition}`);
    await store.turns.suspend(admission.lease, 'provider overloaded');
    await store.turns.claimResume(admission.lease.turnId, admission.lease.generation, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00');
    await store.close();

    const run = await runCliIn(temp.path(), ['turns', 'show', admission.lease.turnId], { clock });

    expect(run.status).toBe(0);
    expect(run.stdout).toContain('\n  traces    0af7651916cd43dd8448eb211c80319c 4bf92f3577b34da6a3ce929d0e0e4736\n');
  });
});
