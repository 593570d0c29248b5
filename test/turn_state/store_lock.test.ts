import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isStoreInUseError, type StoreInUseError } from '../../src/turn_state/errors.js';
import { lockStoreFile, storeLockFiles, type StoreLock } from '../../src/turn_state/sqlite/store_lock.js';
import { useTempDir } from '../support/temp_dir.js';

const LOCK_SOURCE = new URL('../../src/turn_state/sqlite/store_lock.ts', import.meta.url).href;
const NOW = Date.UTC(2026, 2, 1, 12, 0, 0);

/** What `lockStoreFile` threw, failing the test when it took the file instead. */
function refusal(dbPath: string): StoreInUseError {
  try {
    lockStoreFile(dbPath, NOW).release();
  } catch (error) {
    if (isStoreInUseError(error)) return error;
    throw error;
  }
  throw new Error(`${dbPath} was taken although another holder has it`);
}

/** Another process that takes the store file and holds it until killed. */
async function holderProcess(dbPath: string): Promise<ChildProcess> {
  const code =
    `import { lockStoreFile } from ${JSON.stringify(LOCK_SOURCE)};\nlockStoreFile(${JSON.stringify(dbPath)}, ` +
    `Date.now());\nprocess.stdout.write('held\\n');\nsetInterval(() => undefined, 60_000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (status) => reject(new Error(`the holder process exited (${String(status)}) before it took the file`)));
  });
  return child;
}

describe('the store file lock', () => {
  const temp = useTempDir();
  const held: StoreLock[] = [];
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const lock of held.splice(0)) lock.release();
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }
  });

  const dbPathIn = (): string => join(temp.path(), 'data', 'turns.sqlite3');

  it('refuses a second holder, naming the file and the holder, until the first releases it', () => {
    const dbPath = dbPathIn();
    const first = lockStoreFile(dbPath, NOW);
    held.push(first);

    const refused = refusal(dbPath);
    expect(refused.dbPath).toBe(dbPath);
    expect(refused.holder).toEqual({ pid: process.pid, host: hostname(), startedAt: '2026-03-01T12:00:00.000Z' });
    expect(refused.message).toBe(
      `the store ${dbPath} is in use by another bot process (pid ${process.pid} on host ${hostname()}, since ` +
        `2026-03-01T12:00:00.000Z); stop that one first, or give this one its own turn_state.db_path`,
    );

    first.release();
    held.push(lockStoreFile(dbPath, NOW));
  });

  it('is refused while another process holds it, and taken once that process is killed', async () => {
    const dbPath = dbPathIn();
    const child = await holderProcess(dbPath);
    children.push(child);
    expect(refusal(dbPath).holder?.pid).toBe(child.pid);

    child.kill('SIGKILL');
    await once(child, 'exit');

    held.push(lockStoreFile(dbPath, NOW));
    expect(refusal(dbPath).holder?.pid).toBe(process.pid);
  });

  it('still refuses when the holder left no readable record of itself', () => {
    const dbPath = dbPathIn();
    held.push(lockStoreFile(dbPath, NOW));
    writeFileSync(storeLockFiles(dbPath).holder, '{"pid":');

    const refused = refusal(dbPath);
    expect(refused.holder).toBeUndefined();
    expect(refused.message).toContain('(a process that left no record of itself)');
    rmSync(storeLockFiles(dbPath).holder);
    expect(refusal(dbPath).holder).toBeUndefined();
  });

  it('releases only its own hold: a second release leaves the next holder holding', () => {
    const dbPath = dbPathIn();
    const first = lockStoreFile(dbPath, NOW);
    first.release();
    held.push(lockStoreFile(dbPath, NOW + 1));
    first.release();

    expect(refusal(dbPath).holder?.startedAt).toBe('2026-03-01T12:00:00.001Z');
  });

  it('keeps its files readable by the owner only', () => {
    const dbPath = dbPathIn();
    held.push(lockStoreFile(dbPath, NOW));
    const files = storeLockFiles(dbPath);
    expect([files.lock, files.holder].map((file) => statSync(file).mode & 0o777)).toEqual([0o600, 0o600]);
  });
});
