import { KeyedSerialQueue } from '../core/keyed_queue.js';

/**
 * One lane per channel: a channel runs one job at a time, later ones wait in order, and a lane
 * holds at most `maxQueued` waiting jobs. Lanes of different channels run independently. A job's
 * failure is its own business: the lane goes on with the next.
 */
export class ChannelLanes {
  readonly #queue: KeyedSerialQueue;

  constructor(maxQueued: number) {
    this.#queue = new KeyedSerialQueue({ capacity: maxQueued });
  }

  /** Queues `job` on the channel's lane; `false` (and nothing queued) when the lane is full. */
  enqueue(channel: string, job: () => Promise<void>): boolean {
    const done = this.#queue.offer(channel, job);
    done?.catch(() => undefined);
    return done !== undefined;
  }

  /** Resolves when every lane has finished its jobs. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }
}
