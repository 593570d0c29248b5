import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual_clock.js';
import { admitNew, openTestStore, openTurnStoreFile } from '../support/turn_store.js';
import { useTempDir } from '../support/temp_dir.js';

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);
const fullMode = (path: string): string => (statSync(path).mode & 0o7777).toString(8);

describe('turn store file modes', () => {
  const temp = useTempDir();

  it('makes its directories 0700 and the database, WAL, SHM and blob files 0600', async () => {
    const { store, dbPath } = openTestStore(temp.path());
    const lease = await admitNew(store, 'm-1');
    await store.checkpoint(lease, {
      append: [{ role: 'user', content: [{ type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: Buffer.from('png bytes').toString('base64') } }] }],
      state: {},
      progressed: false,
    });
    const dir = dirname(dbPath);
    expect(mode(dir)).toBe('700');
    for (const file of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) expect(`${file}:${mode(file)}`).toBe(`${file}:600`);
    const blobs = join(dir, 'blobs');
    expect(mode(blobs)).toBe('700');
    const blobFiles = readdirSync(blobs, { recursive: true, encoding: 'utf8' }).map((name) => join(blobs, name));
    expect(blobFiles.filter((path) => statSync(path).isFile())).toHaveLength(1);
    for (const path of blobFiles) expect(`${path}:${mode(path)}`).toBe(`${path}:${statSync(path).isDirectory() ? '700' : '600'}`);
    await store.close();
  });

  it('leaves the sticky, world-writable directory it is put in as it was, and keeps its own files private there', async () => {
    const shared = join(temp.path(), 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const dbPath = join(shared, 'turns.sqlite3');
    const store = openTurnStoreFile(dbPath, { clock: new ManualClock() });
    await admitNew(store, 'm-1');
    expect(fullMode(shared)).toBe('1777');
    for (const file of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) expect(`${file}:${mode(file)}`).toBe(`${file}:600`);
    expect(mode(join(shared, 'blobs'))).toBe('700');
    await store.close();
  });

  it('leaves the working directory as it was when the store file lies directly in it', async () => {
    const cwd = join(temp.path(), 'work');
    mkdirSync(cwd);
    chmodSync(cwd, 0o755);
    const store = openTurnStoreFile(resolve(cwd, 'turns.sqlite3'), { clock: new ManualClock() });
    expect(mode(cwd)).toBe('755');
    await store.close();
  });

  it('leaves the modes of a store file, its directory and its blob directory that already existed', async () => {
    const { store: first, dbPath } = openTestStore(temp.path());
    await first.close();
    const blobs = join(dirname(dbPath), 'blobs');
    chmodSync(dbPath, 0o640);
    chmodSync(blobs, 0o750);
    chmodSync(dirname(dbPath), 0o750);
    const store = openTurnStoreFile(dbPath, { clock: new ManualClock() });
    await admitNew(store, 'm-1');
    expect([dbPath, blobs, dirname(dbPath)].map(mode)).toEqual(['640', '750', '750']);
    await store.close();
  });
});
