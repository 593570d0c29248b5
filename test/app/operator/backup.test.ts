import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockStoreFile } from '../../../src/turn_state/sqlite/store_lock.js';
import { ManualClock } from '../../support/manual_clock.js';
import { parkedTurn, runCliIn, storeIn, storePathIn } from '../../support/operator_cli.js';
import { useTempDir } from '../../support/temp_dir.js';
import { openStoreFileAt } from '../../support/turn_store.js';

describe('holdfast backup', () => {
  const temp = useTempDir();

  it('copies the store, with the blobs its rows refer to, while a bot process holds it and has it open', async () => {
    const clock = new ManualClock();
    const live = storeIn(temp.path(), clock);
    const turnId = await parkedTurn(live.turns, 'm-1', [{ id: 'w1', input: { text: 'n'.repeat(300_000) } }]);
    const lock = lockStoreFile(storePathIn(temp.path()), clock.now());
    let run;
    try {
      run = await runCliIn(temp.path(), ['backup', 'backups/copy.sqlite3'], { clock });
    } finally {
      lock.release();
      await live.close();
    }

    const copyPath = join(temp.path(), 'backups', 'copy.sqlite3');
    expect(run).toEqual({
      status: 0,
      stderr: '',
      stdout: `Backed up ${storePathIn(temp.path())} to ${copyPath}; the blobs it refers to are in ${join(temp.path(), 'backups', 'blobs')}. Keep the two together.\n`,
    });
    const copy = openStoreFileAt(copyPath, { clock });
    expect(await copy.turns.getTurn(turnId)).toMatchObject({ status: 'AWAITING_RESOLUTION' });
    expect((await copy.turns.listOps(turnId))[0]?.input).toEqual({ text: 'n'.repeat(300_000) });
    expect(await copy.operator.checkIntegrity()).toEqual([]);
    await copy.close();
  });

  it('exits 2 and leaves an existing file as it was', async () => {
    const clock = new ManualClock();
    await storeIn(temp.path(), clock).close();
    const existing = temp.write('copy.sqlite3', 'keep me');

    expect(await runCliIn(temp.path(), ['backup', 'copy.sqlite3'], { clock })).toEqual({
      status: 2,
      stdout: '',
      stderr: `holdfast: ${existing} already exists; a backup never overwrites a file: name a new one\n`,
    });
    expect(readFileSync(existing, 'utf8')).toBe('keep me');
  });

  it('exits 2 when there is no store to copy, or no PATH', async () => {
    const missing = await runCliIn(temp.path(), ['backup', 'copy.sqlite3']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^holdfast: the store .*turns\.sqlite3 does not exist/);
    expect(existsSync(join(temp.path(), 'copy.sqlite3'))).toBe(false);

    expect(await runCliIn(temp.path(), ['backup'])).toEqual({ status: 2, stdout: '', stderr: "holdfast: missing PATH\nTry 'holdfast backup --help' for the options.\n" });
  });

  it('exits 1 when the copy cannot be written', async () => {
    const clock = new ManualClock();
    await storeIn(temp.path(), clock).close();
    temp.write('not-a-directory', 'a file');

    const run = await runCliIn(temp.path(), ['backup', 'not-a-directory/copy.sqlite3'], { clock });

    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^holdfast: the backup to ${join(temp.path(), 'not-a-directory', 'copy.sqlite3')} could not be written: `));
  });
});
