import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { SystemClock } from '../../../src/core/system_clock.js';
import { openPostgresStore, type OpenedPgStore } from '../../../src/turn_state/postgres/open_pg_store.js';
import type { PgConnection } from '../../../src/turn_state/postgres/pg_pool.js';
import { APPROVALS_ANSWERED } from '../../../src/turn_state/turn_types.js';
import { ManualClock } from '../../support/manual_clock.js';
import { approvalTurn, DistinctIds, parkedTurn, runCliIn } from '../../support/operator_cli.js';
import { freshPgConnection } from '../../support/postgres_schema.js';
import { useTempDir } from '../../support/temp_dir.js';
import { TEST_TIMINGS } from '../../support/turn_store.js';

describe('the operator commands on a PostgreSQL store', () => {
  const temp = useTempDir();

  function configFor(connection: PgConnection): string {
    return temp.write('config.yml', `llm:\n  model: test-model\nturn_state:\n  backend: postgres\n  postgres:\n    url: ${connection.url}\n    schema: ${connection.schema}\n`);
  }

  async function storeOn(connection: PgConnection): Promise<OpenedPgStore> {
    return openPostgresStore({ connection, clock: new SystemClock(), ids: new DistinctIds(), logger: pino({ level: 'silent' }), shards: null, ...TEST_TIMINGS });
  }

  const where = (connection: PgConnection): string => `PostgreSQL schema ${connection.schema} at ${new URL(connection.url).host}${new URL(connection.url).pathname}`;

  it('list, resolve and check the shared store while it is in use, and refuse to copy it', async () => {
    const connection = freshPgConnection();
    const config = configFor(connection);
    const store = await storeOn(connection);
    if (store.turns === undefined) throw new Error('no turn store');
    const turn = await parkedTurn(store.turns, 'm-1', [{ id: 'w1' }]);
    const clock = new ManualClock();

    const list = await runCliIn(temp.path(), ['turns', 'list', '--json', '--config', config], { clock });
    expect(list.status).toBe(0);
    expect(list.stdout).toContain(`"id":"${turn}"`);
    expect(list.stdout).toContain('"status":"AWAITING_RESOLUTION"');

    const resolved = await runCliIn(temp.path(), ['turns', 'resolve', turn.slice(0, 8), 'w1', '--applied', '--result', 'T-42', '--config', config], { clock });
    expect(resolved.status).toBe(0);
    expect((await store.operator?.turnDetail(turn))?.ops[0]).toMatchObject({ state: 'RESOLVED_APPLIED', verdict: { text: 'T-42' } });
    expect((await store.turns.getTurn(turn))?.status).toBe('SUSPENDED');

    const doctor = await runCliIn(temp.path(), ['doctor', '--config', config], { clock });
    expect(doctor.stdout).toContain(`store: ${where(connection)}: integrity ok\n`);
    expect(doctor.stdout).not.toContain(new URL(connection.url).password);

    const backup = await runCliIn(temp.path(), ['backup', 'copy.sqlite3', '--config', config], { clock });
    expect(backup).toEqual({
      status: 2,
      stdout: '',
      stderr:
        `holdfast: the PostgreSQL store is backed up with PostgreSQL's own tools, not copied by holdfast backup: run ` + `pg_dump against turn_state.postgres.url (its schema holds the whole store)\n`,
    });
    await store.close();
  });

  it('list the calls waiting for approval, approve and deny them in the shared store while it is in use, and count them in doctor', async () => {
    const connection = freshPgConnection();
    const config = configFor(connection);
    const store = await storeOn(connection);
    if (store.turns === undefined) throw new Error('no turn store');
    const turn = await approvalTurn(store.turns, 'm-1', [{ id: 'w1' }, { id: 'w2' }]);
    const clock = new ManualClock();

    const list = await runCliIn(temp.path(), ['turns', 'list', '--json', '--config', config], { clock });
    expect(JSON.parse(list.stdout)).toMatchObject({ turns: [{ id: turn, status: 'AWAITING_APPROVAL', calls_awaiting_approval: 2 }] });
    const doctor = await runCliIn(temp.path(), ['doctor', '--json', '--config', config], { clock });
    expect(JSON.parse(doctor.stdout)).toMatchObject({ healthy: true, census: { awaiting_approval: 1, calls_awaiting_approval: 2 } });

    const approved = await runCliIn(temp.path(), ['turns', 'approve', turn.slice(0, 8), 'w1', '--json', '--config', config], { clock });
    expect(JSON.parse(approved.stdout)).toEqual({ turn, call: 'w1', state: 'APPROVED', remaining: 1, turn_status: 'AWAITING_APPROVAL' });
    const denied = await runCliIn(temp.path(), ['turns', 'deny', turn.slice(0, 8), 'w2', '--note', 'not today', '--config', config], { clock });
    expect(denied.status).toBe(0);
    const again = await runCliIn(temp.path(), ['turns', 'deny', turn.slice(0, 8), 'w1', '--config', config], { clock });
    expect(again.status).toBe(3);
    expect(again.stderr).toMatch(/^holdfast: call w1 of turn .* does not wait for approval: it was already approved by cli:/);

    expect((await store.operator?.turnDetail(turn))?.ops.map((op) => [op.state, op.approval?.decision?.note])).toEqual([
      ['APPROVED', null],
      ['DENIED', 'not today'],
    ]);
    expect(await store.turns.getTurn(turn)).toMatchObject({ status: 'SUSPENDED', suspensionReason: APPROVALS_ANSWERED, resolutionUntold: true });
    await store.close();
  });

  it('report the usage the bots of every process counted in the shared store', async () => {
    const connection = freshPgConnection();
    const config = configFor(connection);
    const store = await storeOn(connection);
    for (const [userId, messageId, inputTokens] of [
      ['ana', 'm-1', 900],
      ['bob', 'm-2', 300],
      ['ana', 'm-3', 100],
    ] as const) {
      const identity = { source: 'discord', channelId: 'general', messageId };
      await store.usage.admit({ identity, owner: { source: 'discord', userId, channelId: 'general', serverId: 'guild-1' }, limits: [] });
      await store.usage.record(identity, userId, [{ model: 'fast-model', inputTokens, outputTokens: 10, cost: null }]);
    }

    const run = await runCliIn(temp.path(), ['usage', '--by', 'user', '--config', config]);

    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toBe(
      [
        'Usage over the last 7 days:',
        'USER  TURNS  REFUSED  CALLS  INPUT  CACHED  OUTPUT  REASONING  COST',
        'ana   2      0        2      1000   0       20      0          -',
        'bob   1      0        1      300    0       10      0          -',
        '',
      ].join('\n'),
    );
    await store.close();
  });

  it('say a schema the bot never created does not exist, and create nothing', async () => {
    const connection = freshPgConnection();

    const run = await runCliIn(temp.path(), ['turns', 'list', '--config', configFor(connection)]);

    expect(run.status).toBe(2);
    expect(run.stderr).toBe(`holdfast: the store ${where(connection)} does not exist (the bot creates it at its first start; is this the bot's configuration?)\n`);
    const store = await storeOn(connection);
    expect(await store.operator?.listTurns({})).toEqual([]);
    await store.close();
  });
});
