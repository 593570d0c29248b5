import type { Logger } from '../../core/logger.js';
import { KeyedSerialQueue } from '../../core/keyed_queue.js';

/**
 * One lane per channel: a channel runs one job at a time, later ones wait in order. Lanes of
 * different channels run independently. A job answers its own failures; one that still throws
 * is logged at ERROR, and the lane goes on with the next.
 */
export class ChannelLanes {
  readonly #queue = new KeyedSerialQueue();

  constructor(
    private readonly maxQueued: number,
    private readonly logger: Logger,
  ) {}

  /** Whether the channel's lane may take one more job: at most `maxQueued` wait behind the running one. */
  hasRoom(channel: string): boolean {
    return this.#queue.size(channel) <= this.maxQueued;
  }

  /** Queues `job` on the channel's lane, whatever its length: the caller checked {@link hasRoom}, or must not refuse. */
  enqueue(channel: string, job: () => Promise<void>): void {
    void this.#queue.run(channel, job).catch((error: unknown) => this.logger.error({ err: error, channel }, 'a job of the channel failed unanswered'));
  }

  /** Resolves when every lane has finished its jobs. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }
}
