import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/turn_state/sqlite/group_commit.js';
import { SqliteRunner } from '../../src/turn_state/sqlite/sqlite_runner.js';
import { query, type Op } from '../../src/turn_state/operations/instructions.js';
import { openTurnDatabase } from '../../src/turn_state/sqlite/file.js';
import { WalCheckpointer, type WalLimits } from '../../src/turn_state/sqlite/wal_checkpointer.js';
import { WalFile } from '../../src/turn_state/sqlite/wal_file.js';
import { ManualClock } from '../support/manual_clock.js';
import { useTempDir } from '../support/temp_dir.js';
import { openStoreFileAt } from '../support/turn_store.js';

const RUNNER_SOURCE = new URL('../../src/turn_state/sqlite/sqlite_runner.ts', import.meta.url).href;
const FILE_SOURCE = new URL('../../src/turn_state/sqlite/file.ts', import.meta.url).href;
const INSTRUCTIONS_SOURCE = new URL('../../src/turn_state/operations/instructions.ts', import.meta.url).href;
const CLOCK_SOURCE = new URL('../../src/core/system_clock.ts', import.meta.url).href;

const KIB = 1024;
const BODY = 'x'.repeat(3 * KIB);

/** A file in WAL mode, its log held open, checkpointed by a worker past `limits`, and a group commit on it. */
function walStore(path: string, limits: WalLimits): { db: Database; wal: WalFile; checkpointer: WalCheckpointer; group: GroupCommit; close(): Promise<void> } {
  const db = new BetterSqlite3(path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  db.pragma('synchronous = NORMAL');
  const wal = WalFile.of(db);
  if (wal === undefined) throw new Error('no log');
  const checkpointer = new WalCheckpointer(db, wal, limits);
  const group = new GroupCommit(db, wal, checkpointer);
  return {
    db,
    wal,
    checkpointer,
    group,
    async close() {
      await checkpointer.close();
      db.close();
      wal.close();
    },
  };
}

describe('the write-ahead log is checkpointed off the event loop and stays short', () => {
  const temp = useTempDir();
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });

  it('is checkpointed by the worker, not the connection, once past its limit, and starts over at that size', async () => {
    const store = walStore(join(temp.path(), 'notes.sqlite3'), { checkpointAt: 64 * KIB, holdWritesAt: 64 * 1024 * KIB });
    closing.push(() => store.close());
    const insert = () => store.db.prepare('INSERT INTO notes (body) VALUES (?)').run(BODY);

    for (let i = 0; i < 100; i++) await store.group.write(insert);
    await store.checkpointer.idle();
    await store.group.write(insert);

    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    expect(store.checkpointer.checkpoints).toBeGreaterThan(0);
    expect(store.wal.size()).toBeLessThanOrEqual(64 * KIB);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM notes').get()).toEqual({ n: 101 });
  });

  it('holds the writes past its hard limit until a checkpoint catches up, so the log never grows much past it', async () => {
    const store = walStore(join(temp.path(), 'notes.sqlite3'), { checkpointAt: 32 * KIB, holdWritesAt: 64 * KIB });
    closing.push(() => store.close());
    const insert = () => store.db.prepare('INSERT INTO notes (body) VALUES (?)').run(BODY);
    let longest = 0;

    for (let i = 0; i < 50; i++) {
      await Promise.all(Array.from({ length: 4 }, () => store.group.write(insert)));
      longest = Math.max(longest, store.wal.size());
    }

    // At most one group past the hard limit: the group that crossed it.
    expect(longest).toBeLessThanOrEqual(64 * KIB + 4 * 2 * (4 * KIB + 24));
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM notes').get()).toEqual({ n: 200 });
  });

  it('leaves no log beside the store file once the store closes, though a worker checkpointed it', async () => {
    const dbPath = join(temp.path(), 'turns.sqlite3');
    const store = openStoreFileAt(dbPath, { clock: new ManualClock() });
    const entry = { role: 'user' as const, text: 'y'.repeat(64 * KIB) };
    for (let i = 0; i < 80; i++) await Promise.all([store.history.append('console:a', entry), store.history.append('console:b', entry)]);
    expect(statSync(`${dbPath}-wal`).size).toBeGreaterThan(0);

    await store.close();

    expect(existsSync(`${dbPath}-wal`)).toBe(false);
    const reopened = openTurnDatabase(dbPath);
    expect(reopened.prepare('SELECT COUNT(*) AS n FROM history_entries').get()).toEqual({ n: 160 });
    reopened.close();
  });

  it('counts the checkpoints its worker made for the store, none for a database in memory, and closes once however often it is asked', async () => {
    const db = openTurnDatabase(join(temp.path(), 'turns.sqlite3'));
    db.exec('CREATE TABLE notes (n INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const runner = new SqliteRunner(db, undefined, new ManualClock(), { checkpointAt: 32 * KIB, holdWritesAt: 64 * KIB });
    const memory = new SqliteRunner(new BetterSqlite3(':memory:'), undefined, new ManualClock());
    function* insert(n: number): Op<void> {
      yield* query('INSERT INTO notes (n, body) VALUES (@n, @body)', { n, body: BODY });
    }
    for (let n = 0; n < 100; n++) await runner.write('insert', insert(n));
    expect(runner.checkpoints).toBeGreaterThan(0);
    expect(memory.checkpoints).toBe(0);
    await Promise.all([runner.close(), runner.close(), memory.close()]);
    expect(db.open).toBe(false);
    expect(existsSync(join(temp.path(), 'turns.sqlite3-wal'))).toBe(false);
  });

  it('reopens with every answered write after the process is killed while its log is being checkpointed', async () => {
    const dbPath = join(temp.path(), 'turns.sqlite3');
    const code = [
      `import { SqliteRunner } from ${JSON.stringify(RUNNER_SOURCE)};`,
      `import { openTurnDatabase } from ${JSON.stringify(FILE_SOURCE)};`,
      `import { query } from ${JSON.stringify(INSTRUCTIONS_SOURCE)};`,
      `import { SystemClock } from ${JSON.stringify(CLOCK_SOURCE)};`,
      `const db = openTurnDatabase(${JSON.stringify(dbPath)});`,
      `db.exec('CREATE TABLE kill_test (n INTEGER PRIMARY KEY, body TEXT NOT NULL)');`,
      `const runner = new SqliteRunner(db, undefined, new SystemClock(), { checkpointAt: 32 * 1024, holdWritesAt: 256 * 1024 });`,
      `function* insert(n) { yield* query('INSERT INTO kill_test (n, body) VALUES (@n, @body)', { n, body: 'z'.repeat(3000) }); }`,
      `let next = 0;`,
      `async function writer() { for (;;) { const n = next++; await runner.write('insert', insert(n)); process.stdout.write(\`answered \${n} \${runner.checkpoints}\\n\`); } }`,
      `for (let i = 0; i < 4; i++) void writer();`,
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const answered: number[] = [];
    let afterCheckpoints = 0;
    for await (const line of createInterface({ input: child.stdout })) {
      const [, n, checkpoints] = line.split(' ');
      answered.push(Number(n));
      if (Number(checkpoints) >= 3) afterCheckpoints += 1;
      if (afterCheckpoints === 200) break;
    }
    child.kill('SIGKILL');
    await exited;

    const reopened = openTurnDatabase(dbPath);
    const kept = new Set((reopened.prepare('SELECT n FROM kill_test').all() as { n: number }[]).map((row) => row.n));
    reopened.close();
    expect(answered.filter((n) => !kept.has(n))).toEqual([]);
    expect(answered.length).toBeGreaterThan(200);
  });
});
