import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { SAMPLES } from './store_workload.js';

/** What the disk under the bench's files does alone, measured in the same run as the stores. */
export interface DiskFigures {
  /** Milliseconds of a one-row commit with `synchronous = FULL` in WAL mode: SQLite syncing its own commit. */
  readonly fullCommit: number[];
  /** Milliseconds of an `fdatasync` after a 4 KiB write. */
  readonly fdatasync: number[];
  /** `fdatasync`s a second, one after another. */
  readonly fdatasyncPerSecond: number;
}

/**
 * Milliseconds of an `fdatasync` after each of {@link SAMPLES} writes of `bytes` to the file at
 * `path`: over its first bytes each time, or appended to its end.
 */
function syncsAfterWrites(path: string, bytes: number, where: 'in place' | 'appended'): number[] {
  const fd = openSync(path, 'w');
  const data = Buffer.alloc(bytes, 1);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    writeSync(fd, data, 0, data.length, where === 'appended' ? i * bytes : 0);
    const started = performance.now();
    fdatasyncSync(fd);
    samples.push(performance.now() - started);
  }
  closeSync(fd);
  return samples;
}

/** {@link DiskFigures} on the disk of the system's temp directory, where the stores' files are. */
export function measureDisk(): DiskFigures {
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-bench-disk-'));
  try {
    const db = new BetterSqlite3(join(dir, 'full.sqlite3'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, value TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO rows (value) VALUES (?)');
    const fullCommit: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const started = performance.now();
      insert.run(`row ${i}`);
      fullCommit.push(performance.now() - started);
    }
    db.close();
    const fdatasync = syncsAfterWrites(join(dir, 'page'), 4096, 'in place');
    return { fullCommit, fdatasync, fdatasyncPerSecond: (1000 * fdatasync.length) / fdatasync.reduce((sum, ms) => sum + ms, 0) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Milliseconds of an `fdatasync` after each of {@link SAMPLES} appends of `bytes` to one file, in
 * the system's temp directory: what a log's sync costs when a write adds that much to its end.
 */
export function measureAppendSync(bytes: number): number[] {
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-bench-disk-'));
  try {
    return syncsAfterWrites(join(dir, 'log'), bytes, 'appended');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
