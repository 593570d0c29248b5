/**
 * One lane per channel: a channel runs one job at a time, later ones wait in order, and a lane
 * holds at most `maxQueued` waiting jobs. Lanes of different channels run independently.
 */
export class ChannelLanes {
  readonly #lanes = new Map<string, { tail: Promise<void>; pending: number }>();
  readonly #idleWaiters: (() => void)[] = [];

  constructor(private readonly maxQueued: number) {}

  /** Queues `job` on the channel's lane; `false` (and nothing queued) when the lane is full. */
  enqueue(channel: string, job: () => Promise<void>): boolean {
    const lane = this.#lanes.get(channel) ?? { tail: Promise.resolve(), pending: 0 };
    if (lane.pending > this.maxQueued) return false;
    lane.pending += 1;
    lane.tail = lane.tail.then(job).catch(() => undefined).then(() => {
      lane.pending -= 1;
      if (lane.pending === 0) {
        this.#lanes.delete(channel);
        if (this.#lanes.size === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
      }
    });
    this.#lanes.set(channel, lane);
    return true;
  }

  /** Resolves when every lane has finished its jobs. */
  idle(): Promise<void> {
    if (this.#lanes.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }
}
