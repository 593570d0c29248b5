import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blobDirectoryFor } from '../../../src/turn_state/sqlite/file.js';
import { FakeLLMServer } from '../../support/fake_llm/server.js';
import { ManualClock } from '../../support/manual_clock.js';
import { approvalTurn, parkedTurn, runCliIn, storeIn, storePathIn } from '../../support/operator_cli.js';
import { useTempDir } from '../../support/temp_dir.js';
import { ToolTarget } from '../../support/tool_target.js';
import { admissionFor } from '../../support/turn_store.js';

describe('holdfast doctor', () => {
  const temp = useTempDir();

  function configWithModel(extra = ''): string {
    return temp.write('config.yml', `llm:\n  model: test-model\n${extra}`);
  }

  it('is healthy, with status 0, for a configuration with a model and a store with nothing waiting', async () => {
    const config = configWithModel();
    const clock = new ManualClock();
    await storeIn(temp.path(), clock).close();

    const run = await runCliIn(temp.path(), ['doctor', '--config', config], { clock });

    expect(run).toEqual({
      status: 0,
      stderr: '',
      stdout: [
        `configuration: ${config}: valid`,
        `store: ${storePathIn(temp.path())}: integrity ok`,
        'turns: 0 active, 0 suspended, 0 awaiting resolution, 0 awaiting approval',
        'calls awaiting a verdict: 0',
        'calls waiting for approval: 0',
        'replies not yet delivered: 0',
        'healthy',
        '',
      ].join('\n'),
    });
  });

  it('lists calls awaiting a verdict, suspended turns and replies not yet delivered, with status 1', async () => {
    const config = configWithModel();
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    await parkedTurn(store.turns, 'm-1', [{ id: 'w1' }, { id: 'w2' }]);
    const suspended = await store.turns.admit(admissionFor('m-2'));
    if (suspended.disposition !== 'admitted') throw new Error('not admitted');
    await store.turns.suspend(suspended.lease, 'the model provider is overloaded');
    const completed = await store.turns.admit(admissionFor('m-3'));
    if (completed.disposition !== 'admitted') throw new Error('not admitted');
    await store.turns.complete(completed.lease, 'Done.');
    await store.turns.admit(admissionFor('m-4'));
    await store.close();

    const run = await runCliIn(temp.path(), ['doctor', '--config', config], { clock });

    expect(run.status).toBe(1);
    expect(run.stdout.split('\n').slice(2)).toEqual([
      'turns: 1 active, 1 suspended, 1 awaiting resolution, 0 awaiting approval',
      'calls awaiting a verdict: 2',
      'calls waiting for approval: 0',
      'replies not yet delivered: 1',
      "problem: 2 call(s) of 1 turn(s) await an operator's verdict: holdfast turns list --status awaiting_resolution",
      'problem: 1 reply(ies) not yet delivered; the running bot posts them (a stopped one at its next start): holdfast turns list',
      'note: 1 turn(s) running',
      "note: 1 turn(s) suspended, waiting for their requester's resume: holdfast turns list --status suspended",
      'needs attention: 2 problem(s)',
      '',
    ]);

    const json = await runCliIn(temp.path(), ['doctor', '--json', '--config', config], { clock });
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      healthy: false,
      problems: [
        "2 call(s) of 1 turn(s) await an operator's verdict: holdfast turns list --status awaiting_resolution",
        '1 reply(ies) not yet delivered; the running bot posts them (a stopped one at its next start): holdfast turns list',
      ],
      notes: ['1 turn(s) running', "1 turn(s) suspended, waiting for their requester's resume: holdfast turns list --status suspended"],
      census: {
        active: 1,
        suspended: 1,
        awaiting_resolution: 1,
        calls_awaiting_verdict: 2,
        awaiting_approval: 0,
        calls_awaiting_approval: 0,
        replies_pending: 1,
        stranded_calls: 0,
        expired_leases: 0,
      },
    });
  });

  it('reports calls waiting for a person’s approval as a note, not a problem: healthy, with status 0', async () => {
    const config = configWithModel();
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    await approvalTurn(store.turns, 'm-1', [{ id: 'w1' }, { id: 'w2' }]);
    await store.close();

    const run = await runCliIn(temp.path(), ['doctor', '--config', config], { clock });

    expect(run.status).toBe(0);
    expect(run.stdout.split('\n').slice(2)).toEqual([
      'turns: 0 active, 0 suspended, 0 awaiting resolution, 1 awaiting approval',
      'calls awaiting a verdict: 0',
      'calls waiting for approval: 2',
      'replies not yet delivered: 0',
      "note: 2 call(s) of 1 turn(s) wait for a person's approval, denied when nobody answers in time: holdfast turns list --status awaiting_approval",
      'healthy',
      '',
    ]);
    const json = await runCliIn(temp.path(), ['doctor', '--json', '--config', config], { clock });
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      healthy: true,
      problems: [],
      notes: ["2 call(s) of 1 turn(s) wait for a person's approval, denied when nobody answers in time: holdfast turns list --status awaiting_approval"],
      census: { awaiting_approval: 1, calls_awaiting_approval: 2, awaiting_resolution: 0, calls_awaiting_verdict: 0 },
    });
  });

  it('reports a call left RUNNING in a turn that ended as a problem, naming the turn, with status 1', async () => {
    const config = configWithModel();
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    const admitted = await store.turns.admit(admissionFor('m-1'));
    if (admitted.disposition !== 'admitted') throw new Error('not admitted');
    const { lease } = admitted;
    const call = { type: 'tool_use' as const, id: 'w1', name: 'save_note', input: { text: 'milk' } };
    await store.turns.recordModelTurn(lease, {
      step: 1,
      assistant: { role: 'assistant', content: [call] },
      intents: [{ toolCallId: 'w1', toolName: 'save_note', input: call.input, effect: 'write' }],
    });
    await store.turns.moveOp(lease, { turnId: lease.turnId, step: 1, toolCallId: 'w1' }, { to: 'RUNNING' });
    await store.turns.finish(lease, 'TERMINAL_FAILED', 'internal_error');
    await store.close();

    const run = await runCliIn(temp.path(), ['doctor', '--json', '--config', config], { clock });

    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout) as { problems: string[]; census: Record<string, number> };
    expect(report.problems).toEqual([
      `1 call(s) still marked RUNNING in turns that are no longer running, so nothing will settle them and each may ` +
        `have taken effect: check them at their tools' targets (holdfast turns show ${lease.turnId.slice(0, 8)})`,
    ]);
    expect(report.census).toMatchObject({ stranded_calls: 1, active: 0 });
  });

  it('calls neither the model provider nor any tool', async () => {
    const fake = await FakeLLMServer.start();
    const target = await ToolTarget.start();
    try {
      const tool = `tools:\n  http:\n    - name: save_note\n      description: Saves a note.\n      method: POST\n      url: ${target.url}/notes\n      effect: write\n`;
      const config = temp.write('config.yml', `llm:\n  model: test-model\n  base_url: ${fake.baseUrl}\n${tool}`);
      await storeIn(temp.path(), new ManualClock()).close();

      expect((await runCliIn(temp.path(), ['doctor', '--config', config])).status).toBe(0);

      expect(fake.requests).toEqual([]);
      expect(target.requests).toEqual([]);
    } finally {
      await fake.close();
      await target.close();
    }
  });

  it('needs attention, with status 1, when there is no store at the configured path, naming it, and does not create it', async () => {
    const config = configWithModel();
    const run = await runCliIn(temp.path(), ['doctor', '--json', '--config', config]);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      healthy: false,
      problems: [
        `no store at ${storePathIn(temp.path())}: the bot creates it at its first start; a bot that already ran keeps it elsewhere (check turn_state.db_path and the folder it is relative to)`,
      ],
      notes: [],
      census: null,
    });
    expect(existsSync(join(temp.path(), 'data'))).toBe(false);
  });

  it('is healthy, with status 0, when the only turns wait for their requesters to type resume', async () => {
    const config = configWithModel();
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    const suspended = await store.turns.admit(admissionFor('m-1'));
    if (suspended.disposition !== 'admitted') throw new Error('not admitted');
    await store.turns.suspend(suspended.lease, 'shutdown');
    await store.close();
    const run = await runCliIn(temp.path(), ['doctor', '--json', '--config', config], { clock });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ healthy: true, problems: [], notes: ["1 turn(s) suspended, waiting for their requester's resume: holdfast turns list --status suspended"] });
  });

  it('needs attention, with status 1, for a turn ACTIVE past its lease that no process took over', async () => {
    const config = configWithModel();
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    await store.turns.admit(admissionFor('m-1'));
    await store.close();
    await clock.advance(31_000);
    const run = await runCliIn(temp.path(), ['doctor', '--json', '--config', config], { clock });
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      problems: [
        '1 turn(s) ACTIVE past the end of their lease, with no process keeping them: start the bot (it suspends them) or check the process that runs them: holdfast turns list --status active',
      ],
      census: { active: 1, expired_leases: 1 },
    });
  });

  it('is healthy with a note when the store is switched off', async () => {
    const config = configWithModel('turn_state:\n  enabled: false\n');
    const run = await runCliIn(temp.path(), ['doctor', '--config', config]);
    expect(run).toEqual({ status: 0, stderr: '', stdout: `configuration: ${config}: valid\nnote: turn_state.enabled is false: nothing is kept on disk, and an interrupted reply is lost\nhealthy\n` });
  });

  it('reports a configuration without a model as a problem', async () => {
    await storeIn(temp.path(), new ManualClock()).close();
    const run = await runCliIn(temp.path(), ['doctor']);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('configuration: (defaults): valid\n');
    expect(run.stdout).toContain('problem: no model is configured (llm.model): every message is answered with what to configure\n');
  });

  it('reports a store file that is not a database, and a blob its rows refer to that is missing', async () => {
    const config = configWithModel();
    const path = storePathIn(temp.path());
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, 'this is not a database, it is only text long enough to be looked at by SQLite '.repeat(100));
    const damaged = await runCliIn(temp.path(), ['doctor', '--config', config]);
    expect(damaged.status).toBe(1);
    expect(damaged.stdout).toMatch(new RegExp(`^problem: the store ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be used: .+$`, 'm'));

    rmSync(dirname(path), { recursive: true });
    const clock = new ManualClock();
    const store = storeIn(temp.path(), clock);
    const admission = await store.turns.admit(admissionFor('m-1'));
    if (admission.disposition !== 'admitted') throw new Error('not admitted');
    const big = { role: 'tool' as const, content: [{ type: 'tool_result' as const, toolUseId: 'c1', content: 'y'.repeat(300_000), isError: false }] };
    await store.turns.checkpoint(admission.lease, { append: [big], state: {}, progressed: true });
    await store.close();
    rmSync(blobDirectoryFor(path), { recursive: true });

    const missingBlob = await runCliIn(temp.path(), ['doctor', '--config', config], { clock });
    expect(missingBlob.status).toBe(1);
    expect(missingBlob.stdout).toContain(`store: ${path}: integrity check failed\n`);
    expect(missingBlob.stdout).toMatch(/^problem: integrity: blob [0-9a-f]{64} is referenced but missing from /m);
  });

  it('exits 2 with one line per configuration problem', async () => {
    const config = temp.write('config.yml', 'llm:\n  modle: x\n');
    const run = await runCliIn(temp.path(), ['doctor', '--config', config]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^holdfast: .*config\.yml:2:3: llm\.modle: unknown key/);
  });
});
