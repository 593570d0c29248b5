import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { TURN_STORE_MIGRATIONS } from '../../src/turn_state/sqlite/migrations.js';
import { blobDirectoryFor } from '../../src/turn_state/sqlite/file.js';
import { ManualClock } from '../support/manual_clock.js';
import { useTempDir } from '../support/temp_dir.js';
import { admitNew, openStoreFileAt, userText } from '../support/turn_store.js';

const tmp = useTempDir();

describe('the operators’ store on SQLite', () => {
  it('a store file from before verdicts keeps every turn and op, its calls given a timeline from their rows, and then takes parked turns and verdicts', async () => {
    const dbPath = join(tmp.path(), 'turns.sqlite3');
    const old = new BetterSqlite3(dbPath);
    old.pragma('foreign_keys = ON');
    TURN_STORE_MIGRATIONS.slice(0, 4).forEach((sql, index) => {
      old.exec(sql);
      old.pragma(`user_version = ${index + 1}`);
    });
    old.exec(`INSERT INTO turns (turn_id, source, channel_id, message_id, requester_id, message_digest, status, generation, revision, created_at, updated_at, last_progress_at)
      VALUES ('old-turn', 'console', 'c', 'm', 'u', 'd', 'SUSPENDED', 1, 3, 1, 2, 2)`);
    old.exec(`INSERT INTO transcript (turn_id, seq, message) VALUES ('old-turn', 0, '{"role":"user","content":[{"type":"text","text":"hi"}]}')`);
    old.exec(`INSERT INTO ops (turn_id, step, tool_call_id, tool_name, effect, state, idempotency_key, fingerprint, input, error, created_at, updated_at)
      VALUES ('old-turn', 1, 'call-1', 'create_ticket', 'write', 'OUTCOME_UNKNOWN', 'k', 'f', '{}', 'interrupted', 1, 2)`);
    old.close();

    const opened = openStoreFileAt(dbPath, { clock: new ManualClock() });
    const { turns, operator } = opened;
    expect(await turns.getTurn('old-turn')).toMatchObject({ status: 'SUSPENDED', revision: 3, resolutionUntold: false });
    expect(await turns.listOps('old-turn')).toMatchObject([{ toolCallId: 'call-1', state: 'OUTCOME_UNKNOWN', error: 'interrupted', verdict: null }]);
    expect((await operator.turnDetail('old-turn'))?.moves).toEqual([
      { turnId: 'old-turn', step: 1, toolCallId: 'call-1', state: 'PREPARED', at: 1, by: null },
      { turnId: 'old-turn', step: 1, toolCallId: 'call-1', state: 'OUTCOME_UNKNOWN', at: 2, by: null },
    ]);
    expect((await turns.loadResumable('old-turn'))?.transcript).toEqual([userText('hi')]);
    const claim = await turns.claimResume('old-turn', 1);
    if (!claim.won) throw new Error('the old turn could not be claimed');
    await turns.awaitResolution(claim.lease, [{ turnId: 'old-turn', step: 1, toolCallId: 'call-1' }], 'uncertain');
    expect(await operator.resolveCall({ call: { turnId: 'old-turn', step: 1, toolCallId: 'call-1' }, verdict: 'applied', text: null, by: 'cli:op' })).toMatchObject({ kind: 'recorded', remaining: 0 });
    expect((await operator.turnDetail('old-turn'))?.moves.map((move) => [move.state, move.by]).slice(2)).toEqual([
      ['MANUAL_RESOLUTION_REQUIRED', null],
      ['RESOLVED_APPLIED', 'cli:op'],
    ]);
    expect(await operator.checkIntegrity()).toEqual([]);
    await opened.close();
  });

  it('backs the store up while it is open, with the blobs its rows refer to; the copy opens with the same turns', async () => {
    const clock = new ManualClock();
    const dbPath = join(tmp.path(), 'live', 'turns.sqlite3');
    const live = openStoreFileAt(dbPath, { clock });
    const lease = await admitNew(live.turns, 'big');
    await live.turns.recordModelTurn(lease, {
      step: 1,
      assistant: { role: 'assistant', content: [{ type: 'tool_use', id: 'call-1', name: 'fetch', input: {} }] },
      intents: [{ toolCallId: 'call-1', toolName: 'fetch', input: {}, effect: 'read' }],
    });
    await live.turns.moveOp(lease, { turnId: lease.turnId, step: 1, toolCallId: 'call-1' }, { to: 'RUNNING' });
    await live.turns.moveOp(lease, { turnId: lease.turnId, step: 1, toolCallId: 'call-1' }, { to: 'APPLIED', result: 'x'.repeat(200_000) });
    const backupPath = join(tmp.path(), 'backup', 'copy.sqlite3');

    await live.operator.backup(backupPath);
    await expect(live.operator.backup(backupPath)).rejects.toThrow(/already exists/);
    await live.close();

    const copy = openStoreFileAt(backupPath, { clock });
    expect(await copy.turns.getTurn(lease.turnId)).toMatchObject({ status: 'ACTIVE' });
    expect((await copy.turns.listOps(lease.turnId))[0]?.result).toHaveLength(200_000);
    expect(await copy.operator.checkIntegrity()).toEqual([]);
    await copy.close();
  });

  it('the integrity check names a blob the rows refer to that is missing', async () => {
    const clock = new ManualClock();
    const dbPath = join(tmp.path(), 'turns.sqlite3');
    const store = openStoreFileAt(dbPath, { clock });
    const lease = await admitNew(store.turns, 'big');
    const bigResult = { role: 'tool' as const, content: [{ type: 'tool_result' as const, toolUseId: 'call-1', content: 'y'.repeat(300_000), isError: false }] };
    await store.turns.checkpoint(lease, { append: [bigResult], state: {}, progressed: true });
    expect(await store.operator.checkIntegrity()).toEqual([]);
    rmSync(blobDirectoryFor(dbPath), { recursive: true });

    const problems = await store.operator.checkIntegrity();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^blob [0-9a-f]{64} is referenced but missing/);
    expect(existsSync(dbPath)).toBe(true);
    await store.close();
  });
});
