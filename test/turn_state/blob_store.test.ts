import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BlobStore } from '../../src/turn_state/blob_store.js';
import { useTempDir } from '../support/temp_dir.js';

const temp = useTempDir();

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

describe('BlobStore', () => {
  it('stores bytes under their SHA-256 digest and reads them back', () => {
    const store = BlobStore.open(join(temp.path(), 'blobs'));
    const bytes = new Uint8Array([0, 1, 2, 255, 128]);
    const digest = store.put(bytes);
    expect(digest).toBe(sha256(bytes));
    expect(store.get(digest)).toEqual(Buffer.from(bytes));
    expect(readFileSync(join(store.dir, digest.slice(0, 2), digest))).toEqual(Buffer.from(bytes));
    expect(store.has(digest)).toBe(true);
  });

  it('stores the empty blob and a large one', () => {
    const store = BlobStore.open(join(temp.path(), 'blobs'));
    const large = Buffer.alloc(3 * 1024 * 1024, 'holdfast');
    expect(store.get(store.put(new Uint8Array()))).toEqual(Buffer.alloc(0));
    expect(store.get(store.put(large)).equals(large)).toBe(true);
  });

  it('stores the same bytes once', () => {
    const store = BlobStore.open(join(temp.path(), 'blobs'));
    const first = store.put(Buffer.from('same bytes'));
    const second = store.put(new TextEncoder().encode('same bytes'));
    expect(second).toBe(first);
    expect(filesUnder(store.dir)).toEqual([join(first.slice(0, 2), first)]);
  });

  it('makes directories 0700 and files 0600', () => {
    const dir = join(temp.path(), 'data', 'blobs');
    const store = BlobStore.open(dir);
    const digest = store.put(Buffer.from('private'));
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, digest.slice(0, 2)))).toBe(0o700);
    expect(mode(join(dir, digest.slice(0, 2), digest))).toBe(0o600);
  });

  it('leaves the mode of a directory that already existed, and keeps its blobs', () => {
    const dir = join(temp.path(), 'blobs');
    const digest = BlobStore.open(dir).put(Buffer.from('kept'));
    chmodSync(dir, 0o750);
    const store = BlobStore.open(dir);
    expect(mode(dir)).toBe(0o750);
    expect(store.get(digest).toString()).toBe('kept');
  });

  it('leaves no temp files behind', () => {
    const store = BlobStore.open(join(temp.path(), 'blobs'));
    const digests = ['a', 'b', 'c', 'a', 'd'].map((text) => store.put(Buffer.from(text)));
    const expected = [...new Set(digests)].map((digest) => join(digest.slice(0, 2), digest)).sort();
    expect(filesUnder(store.dir)).toEqual(expected);
  });

  it('skips, never overwrites, temp files left by a crashed process that had the same pid', () => {
    const store = BlobStore.open(join(temp.path(), 'blobs'));
    const bytes = Buffer.from('after a restart in a container, pid 1 again');
    const digest = sha256(bytes);
    const shard = join(store.dir, digest.slice(0, 2));
    mkdirSync(shard);
    const leftovers = Array.from({ length: 500 }, (_, i) => join(shard, `${digest}.${process.pid}.${i + 1}.tmp`));
    for (const leftover of leftovers) writeFileSync(leftover, 'partial');
    expect(store.put(bytes)).toBe(digest);
    expect(store.get(digest).equals(bytes)).toBe(true);
    expect(leftovers.every((leftover) => readFileSync(leftover, 'utf8') === 'partial')).toBe(true);
    expect(store.list()).toEqual([digest]);
  });

  it('lists every stored digest sorted, ignoring stray files, and deletes', () => {
    const store = BlobStore.open(join(temp.path(), 'blobs'));
    const digests = ['one', 'two', 'three'].map((text) => store.put(Buffer.from(text)));
    const [first] = digests;
    if (first === undefined) throw new Error('no digest');
    writeFileSync(join(store.dir, first.slice(0, 2), `${first}.999.1.tmp`), 'partial');
    writeFileSync(join(store.dir, 'README'), 'not a blob');
    mkdirSync(join(store.dir, 'zz'));
    expect(store.list()).toEqual([...digests].sort());

    expect(store.delete(first)).toBe(true);
    expect(store.delete(first)).toBe(false);
    expect(store.has(first)).toBe(false);
    expect(store.list()).toEqual(digests.slice(1).sort());
  });

  it('names the digest when a blob is missing', () => {
    const store = BlobStore.open(join(temp.path(), 'blobs'));
    const missing = sha256(Buffer.from('never stored'));
    expect(() => store.get(missing)).toThrow(new RegExp(`blob ${missing} is not in the blob store`));
    expect(store.has(missing)).toBe(false);
  });

  it('refuses anything that is not a 64-character lowercase hex digest', () => {
    const store = BlobStore.open(join(temp.path(), 'blobs'));
    const upper = sha256(Buffer.from('x')).toUpperCase();
    for (const bad of ['../../etc/passwd', '', 'abc', upper, `${'0'.repeat(63)}/`, `..${'0'.repeat(62)}`]) {
      expect(() => store.get(bad), bad).toThrow(/not a blob digest/);
      expect(() => store.has(bad), bad).toThrow(/not a blob digest/);
      expect(() => store.delete(bad), bad).toThrow(/not a blob digest/);
    }
  });
});
