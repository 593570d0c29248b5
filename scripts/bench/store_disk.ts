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
    const fd = openSync(join(dir, 'page'), 'w');
    const page = Buffer.alloc(4096, 1);
    const fdatasync: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      writeSync(fd, page, 0, page.length, 0);
      const started = performance.now();
      fdatasyncSync(fd);
      fdatasync.push(performance.now() - started);
    }
    closeSync(fd);
    return { fullCommit, fdatasync, fdatasyncPerSecond: (1000 * fdatasync.length) / fdatasync.reduce((sum, ms) => sum + ms, 0) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
