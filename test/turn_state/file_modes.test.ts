import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { admitNew, openTestStore } from '../support/turn_store.js';
import { useTempDir } from '../support/temp_dir.js';

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

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

  it('tightens a directory that already existed with looser modes', async () => {
    const dir = join(temp.path(), 'turn_state');
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    const { store } = openTestStore(temp.path());
    expect(mode(dir)).toBe('700');
    await store.close();
  });
});
