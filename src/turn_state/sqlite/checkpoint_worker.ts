import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** What one `PRAGMA wal_checkpoint(PASSIVE)` did: the frames in the log, and how many of them are now in the database file. */
export interface CheckpointResult {
  readonly logFrames: number;
  readonly checkpointedFrames: number;
}

/**
 * The worker's code, CommonJS given as text, so that it runs the same from the sources and from the
 * bundle. Its own connection to the file runs each checkpoint asked for, one at a time. It never
 * writes, and keeps `synchronous = FULL`, so a checkpoint syncs the log before it copies pages and
 * the database file before SQLite may reuse the log (a checkpoint that skipped those would let a
 * power cut lose commits).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('synchronous = FULL');
db.pragma('wal_autocheckpoint = 0');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true, logFrames: row.log, checkpointedFrames: row.checkpointed });
  } catch (error) {
    parentPort.postMessage({ ok: false, message: String(error) });
  }
});
`;

type Answer = ({ readonly ok: true } & CheckpointResult) | { readonly ok: false; readonly message: string };

/** The worker failed a checkpoint: SQLite's message. */
export class CheckpointFailedError extends Error {
  constructor(readonly sqliteMessage: string) {
    super(`the WAL checkpoint failed: ${sqliteMessage}`);
    this.name = 'CheckpointFailedError';
  }
}

/**
 * A worker thread with a connection of its own to the database file at `path`, checkpointing its
 * write-ahead log off the event loop (DESIGN §7.1). A checkpoint is PASSIVE: it takes no lock a
 * writer or reader waits for, and copies what no reader still needs.
 */
export class CheckpointWorker {
  readonly #worker: Worker;
  readonly #exited: Promise<void>;
  #ended = false;
  #asked: { resolve(result: CheckpointResult): void; reject(error: Error): void } | undefined;

  constructor(path: string) {
    // No flags of the process (`--input-type=module` would make the CommonJS text a module).
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { path, driver: createRequire(import.meta.url).resolve('better-sqlite3') } });
    // Between checkpoints the thread keeps no process alive; one that ends without closing the store leaves a log SQLite recovers at the next open.
    this.#worker.unref();
    this.#exited = new Promise((resolve) => this.#worker.once('exit', () => resolve()));
    this.#worker.on('message', (answer: Answer) => {
      const asked = this.#asked;
      this.#asked = undefined;
      this.#worker.unref();
      if (answer.ok) asked?.resolve({ logFrames: answer.logFrames, checkpointedFrames: answer.checkpointedFrames });
      else asked?.reject(new CheckpointFailedError(answer.message));
    });
    this.#worker.on('error', (error) => {
      this.#asked?.reject(error);
      this.#asked = undefined;
    });
    this.#worker.once('exit', () => {
      this.#ended = true;
      this.#asked?.reject(new CheckpointFailedError('the checkpoint worker ended'));
      this.#asked = undefined;
    });
  }

  /** One checkpoint; only one at a time. */
  checkpoint(): Promise<CheckpointResult> {
    if (this.#ended) return Promise.reject(new CheckpointFailedError('the checkpoint worker ended'));
    if (this.#asked !== undefined) return Promise.reject(new Error('a checkpoint is already running'));
    return new Promise((resolve, reject) => {
      this.#asked = { resolve, reject };
      // Writes may wait for this checkpoint: until it answers, the process stays up for it.
      this.#worker.ref();
      this.#worker.postMessage('checkpoint');
    });
  }

  /** Closes the worker's connection after the checkpoint it runs, and ends the thread. */
  async close(): Promise<void> {
    this.#worker.ref();
    this.#worker.postMessage('close');
    await this.#exited;
  }
}
