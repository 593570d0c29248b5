import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { SequentialIds } from '../support/sequential_ids.js';
import { ManualClock } from '../support/manual_clock.js';
import { isTurnStateUnavailable } from '../../src/turn_state/errors.js';
import { openTurnDatabase } from '../../src/turn_state/sqlite/file.js';
import { openSqliteStore } from '../../src/turn_state/sqlite/open_store.js';
import { admissionFor, admitNew, openTestStore, TEST_TIMINGS } from '../support/turn_store.js';
import { useTempDir } from '../support/temp_dir.js';

describe('the turn store fails closed', () => {
  const temp = useTempDir();
  const open = (dbPath: string) =>
    openSqliteStore({ enabled: true, dbPath, baseDir: temp.path(), clock: new ManualClock(), ids: new SequentialIds(), logger: pino({ level: 'silent' }), ...TEST_TIMINGS });

  it('reports unavailable, without throwing, when it cannot open', () => {
    const blocker = join(temp.path(), 'not-a-directory');
    writeFileSync(blocker, 'x');
    const opened = open(join(blocker, 'turns.sqlite3'));
    expect(opened.turns.durable).toBe(false);
  });

  it('lets go of a store file it opened when its blob folder cannot be made, so that the file can be opened again once that is fixed', async () => {
    const dbPath = join(temp.path(), 'turns.sqlite3');
    writeFileSync(join(temp.path(), 'blobs'), 'a file where the blob folder goes');
    const opened = open(dbPath);
    expect(opened.turns.durable).toBe(false);

    rmSync(join(temp.path(), 'blobs'));
    const reopened = open(dbPath);
    expect(reopened.turns.durable).toBe(true);
    await reopened.close();
  });

  it('refuses a database written by a newer schema version rather than touch it', () => {
    const dbPath = join(temp.path(), 'turns.sqlite3');
    const db = new BetterSqlite3(dbPath);
    db.pragma('user_version = 99');
    db.close();
    expect(open(dbPath).turns.durable).toBe(false);
    expect(() => openTurnDatabase(dbPath)).toThrow(/schema version 99/);
  });

  it('raises TurnStateUnavailable in the middle of a durable turn once the store dies, and admits nothing new', async () => {
    const { store } = openTestStore(temp.path());
    const lease = await admitNew(store, 'm-1');
    await store.close();
    const failure = await store.checkpoint(lease, { append: [], state: {}, progressed: true }).catch((error: unknown) => error);
    expect(isTurnStateUnavailable(failure)).toBe(true);
    expect((await store.admit(admissionFor('m-2'))).disposition).toBe('store_unavailable');
  });
});
