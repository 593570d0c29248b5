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

  /** Queues `job` behind everything queued earlier under `key`. Resolves or rejects as the job does. */
  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const lane = this.#lanes.get(key) ?? { tail: Promise.resolve(), size: 0 };
    lane.size += 1;
    const result = lane.tail.then(job);
    const settled = result.then(ignore, ignore);
    lane.tail = settled;
    this.#lanes.set(key, lane);
    void settled.then(() => this.#finished(key, lane));
    return result;
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
