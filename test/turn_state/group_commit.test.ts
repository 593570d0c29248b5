import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommit, type WalSync } from '../../src/turn_state/sqlite/group_commit.js';
import { WalFile } from '../../src/turn_state/sqlite/wal_file.js';
import { deferred } from '../support/deferred.js';
import { useTempDir } from '../support/temp_dir.js';

/** A log sync the test finishes by hand, counting the syncs asked for; a sync on the calling thread fails while `refusing` says so. */
class HeldSync implements WalSync {
  readonly asked: ReturnType<typeof deferred<void>>[] = [];
  refusing: Error | undefined;
  syncedNow = 0;

  sync(): Promise<void> {
    const held = deferred<void>();
    this.asked.push(held);
    return held.promise;
  }

  syncNow(): void {
    if (this.refusing !== undefined) throw this.refusing;
    this.syncedNow += 1;
  }
}

/** A log sync that is done at once. */
class SyncedAtOnce implements WalSync {
  sync(): Promise<void> {
    return Promise.resolve();
  }

  syncNow(): void {}
}

/** Whether `promise` has settled by the time the event loop has turned once more. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('group commit: the writes asked for in one turn of the event loop share one commit and one sync', () => {
  const temp = useTempDir();
  let db: Database;
  const notes = (): string[] => (db.prepare('SELECT text FROM notes ORDER BY id').all() as { text: string }[]).map((row) => row.text);
  const insert = (text: string) => () => db.prepare('INSERT INTO notes (text) VALUES (?)').run(text).lastInsertRowid;

  beforeEach(() => {
    db = new BetterSqlite3(join(temp.path(), 'store.sqlite3'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)');
  });
  afterEach(() => db.close());

  it('commits ten writes of one turn as one group, synced once, each answered with its own value once the sync is done', async () => {
    const wal = new HeldSync();
    const group = new GroupCommit(db, wal);
    const writes = Array.from({ length: 10 }, (_, i) => group.write(insert(`note ${i}`)));

    expect(await settledYet(Promise.race(writes))).toBe(false);
    expect(wal.asked).toHaveLength(1);
    expect(notes()).toHaveLength(10);

    wal.asked[0]?.resolve(undefined);
    expect(await Promise.all(writes)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
  });

  it('fails a write that throws something other than an error with an error saying what it threw, and keeps the rest of the group', async () => {
    const group = new GroupCommit(db, undefined);
    const kept = group.write(insert('kept'));
    const thrown = group.write(() => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- what a careless write may throw
      throw 'not an error';
    });
    await expect(thrown).rejects.toThrow('not an error');
    expect(await kept).toBe(1);
    expect(notes()).toEqual(['kept']);
  });

  it('runs one sync at a time: the groups committed while it runs share the next one, and are answered only after it', async () => {
    const wal = new HeldSync();
    const group = new GroupCommit(db, wal);
    const first = group.write(insert('milk'));
    await settledYet(first);
    const durableAfterFirst = group.durable();
    const second = group.write(insert('eggs'));
    await settledYet(second);
    const third = group.write(insert('bread'));
    await settledYet(third);
    expect(notes()).toEqual(['milk', 'eggs', 'bread']);
    expect(wal.asked).toHaveLength(1);

    wal.asked[0]?.resolve(undefined);
    expect(await first).toBe(1);
    await durableAfterFirst;
    expect(await settledYet(Promise.race([second, third]))).toBe(false);
    expect(wal.asked).toHaveLength(2);

    wal.asked[1]?.resolve(undefined);
    expect(await Promise.all([second, third])).toEqual([2, 3]);
    expect(group.idle).toBe(true);
  });

  it('fails a write that throws alone, its changes rolled back, and keeps the others of its group', async () => {
    const group = new GroupCommit(db, new SyncedAtOnce());
    const first = group.write(insert('milk'));
    const failing = group.write(() => {
      insert('bread')();
      insert('milk')();
    });
    const last = group.write(insert('eggs'));

    await expect(failing).rejects.toThrow(/UNIQUE constraint failed/);
    // The rolled-back row left no trace, not even its id.
    expect(await Promise.all([first, last])).toEqual([1, 2]);
    expect(notes()).toEqual(['milk', 'eggs']);
  });

  it('fails every write of a group when one of them makes SQLite roll back the whole transaction, and keeps none of them', async () => {
    db.exec(`CREATE TRIGGER no_poison BEFORE INSERT ON notes WHEN NEW.text = 'poison' BEGIN SELECT RAISE(ROLLBACK, 'poison is refused'); END`);
    const group = new GroupCommit(db, new SyncedAtOnce());
    const writes = [group.write(insert('milk')), group.write(insert('poison')), group.write(insert('eggs'))];

    const outcomes = await Promise.allSettled(writes);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(outcomes.map((outcome) => (outcome.status === 'rejected' ? String(outcome.reason) : ''))).toEqual(Array.from({ length: 3 }, () => expect.stringContaining('poison is refused') as unknown));
    expect(notes()).toEqual([]);
    expect(db.inTransaction).toBe(false);
    // The connection goes on: the next group commits as usual.
    await group.write(insert('bread'));
    expect(notes()).toEqual(['bread']);
  });

  it('fails every write of a group whose sync fails, though SQLite took them', async () => {
    const wal = new HeldSync();
    const group = new GroupCommit(db, wal);
    const writes = [group.write(insert('milk')), group.write(insert('eggs'))];
    const settled = Promise.allSettled(writes);
    await settledYet(writes[0] as Promise<unknown>);

    wal.asked[0]?.reject(new Error('EIO: the disk is gone'));

    expect((await settled).map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
  });

  it('refuses every write after a failed sync, committing nothing, though the disk would take the next sync', async () => {
    const wal = new HeldSync();
    const group = new GroupCommit(db, wal);
    const lost = group.write(insert('milk'));
    const queued = Promise.allSettled([lost]);
    await settledYet(lost);
    const meanwhile = group.write(insert('eggs'));
    wal.asked[0]?.reject(new Error('EIO: the disk is gone'));
    await queued;

    await expect(meanwhile).rejects.toThrow('EIO: the disk is gone');
    await expect(group.write(insert('bread'))).rejects.toThrow('EIO: the disk is gone');
    expect(() => group.commitNow(insert('flour'))).toThrow('EIO: the disk is gone');
    expect(wal.asked).toHaveLength(1);
    expect(wal.syncedNow).toBe(0);
    expect(notes()).toEqual(['milk']);
  });

  it('fails a group committed while a sync that then fails was running, without syncing again', async () => {
    const wal = new HeldSync();
    const group = new GroupCommit(db, wal);
    const first = group.write(insert('milk'));
    await settledYet(first);
    const second = group.write(insert('eggs'));
    await settledYet(second);
    const both = Promise.allSettled([first, second]);

    wal.asked[0]?.reject(new Error('EIO: the disk is gone'));

    expect((await both).map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(wal.asked).toHaveLength(1);
  });

  it('commits a write now and syncs it on the calling thread; once that sync fails, refuses every write after it', async () => {
    const wal = new HeldSync();
    const group = new GroupCommit(db, wal);

    expect(group.commitNow(insert('milk'))).toBe(1);
    expect(wal.syncedNow).toBe(1);
    wal.refusing = new Error('EIO: the disk is gone');
    expect(() => group.commitNow(insert('eggs'))).toThrow('EIO: the disk is gone');
    wal.refusing = undefined;

    expect(() => group.commitNow(insert('bread'))).toThrow('EIO: the disk is gone');
    await expect(group.write(insert('flour'))).rejects.toThrow('EIO: the disk is gone');
    expect(wal.syncedNow).toBe(1);
    expect(wal.asked).toHaveLength(0);
    expect(notes()).toEqual(['milk', 'eggs']);
  });

  it('holds a reader that waits for durability until the groups before it are synced', async () => {
    const wal = new HeldSync();
    const group = new GroupCommit(db, wal);
    const write = group.write(insert('milk'));
    await settledYet(write);
    const durable = group.durable();

    expect(await settledYet(durable)).toBe(false);
    wal.asked[0]?.resolve(undefined);
    await durable;
    await write;
  });

  it('commits what waits at once when flushed, as before the connection closes', async () => {
    const group = new GroupCommit(db, new SyncedAtOnce());
    const write = group.write(insert('milk'));
    group.flush();
    expect(notes()).toEqual(['milk']);
    await write;
  });

  it('syncs the real log of a file, whose writes a second connection then reads, and has nothing to sync for a database in memory', async () => {
    const wal = WalFile.of(db);
    expect(wal).toBeDefined();
    const group = new GroupCommit(db, wal);
    await group.write(insert('milk'));
    wal?.syncNow();
    wal?.close();
    const reopened = new BetterSqlite3(db.name, { readonly: true });
    expect(reopened.prepare('SELECT text FROM notes').all()).toEqual([{ text: 'milk' }]);
    reopened.close();
    const memory = new BetterSqlite3(':memory:');
    expect(WalFile.of(memory)).toBeUndefined();
    memory.close();
  });
});
