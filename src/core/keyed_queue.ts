/** How a {@link KeyedSerialQueue} bounds each key's line. */
export interface KeyedSerialQueueOptions {
  /**
   * How many jobs may wait under one key behind the one running; a job offered beyond that is
   * refused. Unbounded when absent.
   */
  readonly capacity?: number;
}

interface Lane {
  /** Settles when the lane's last job has settled; the next job starts after it. */
  tail: Promise<void>;
  /** Jobs queued or running under the key. */
  size: number;
}

const ignore = (): void => undefined;

/**
 * Jobs run one at a time per key, in the order they were queued; different keys run side by
 * side. A job that fails fails only its own promise: the jobs behind it still run. What a
 * failure means (log it, report it, refuse the work) is the caller's policy.
 */
export class KeyedSerialQueue {
  readonly #lanes = new Map<string, Lane>();
  readonly #idleWaiters: (() => void)[] = [];
  readonly #capacity: number;

  constructor(options: KeyedSerialQueueOptions = {}) {
    this.#capacity = options.capacity ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Queues `job` behind everything queued earlier under `key`. Resolves or rejects as the job
   * does; `undefined` (and nothing queued) when the key's line is full.
   */
  offer<T>(key: string, job: () => Promise<T>): Promise<T> | undefined {
    const lane = this.#lanes.get(key) ?? { tail: Promise.resolve(), size: 0 };
    if (lane.size > this.#capacity) return undefined;
    lane.size += 1;
    const result = lane.tail.then(job);
    const settled = result.then(ignore, ignore);
    lane.tail = settled;
    this.#lanes.set(key, lane);
    void settled.then(() => this.#finished(key, lane));
    return result;
  }

  /** Like {@link offer}, but a full line rejects with a `RangeError` instead of refusing quietly. */
  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    return this.offer(key, job) ?? Promise.reject(new RangeError(`the queue for ${key} is full`));
  }

  /** How many jobs are queued or running under `key`. */
  size(key: string): number {
    return this.#lanes.get(key)?.size ?? 0;
  }

  /** Resolves when no job is queued or running under any key, including jobs queued meanwhile. */
  idle(): Promise<void> {
    if (this.#lanes.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #finished(key: string, lane: Lane): void {
    lane.size -= 1;
    if (lane.size > 0) return;
    this.#lanes.delete(key);
    if (this.#lanes.size === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }
}
