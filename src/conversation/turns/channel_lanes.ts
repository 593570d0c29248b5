import type { Logger } from '../../core/logger.js';
import { KeyedSerialQueue } from '../../core/keyed_queue.js';
import type { InboundMessage } from '../transport.js';

/**
 * One lane per channel: a channel runs one job at a time, later ones wait in order. Lanes of
 * different channels run independently. A job answers its own failures; one that still throws
 * is logged at ERROR, and the lane goes on with the next. The lane knows which messages wait in
 * it, for `/status`.
 */
export class ChannelLanes {
  readonly #queue = new KeyedSerialQueue();
  /** The messages whose jobs wait in each channel's lane, not yet started, in order. */
  readonly #waiting = new Map<string, InboundMessage[]>();

  constructor(
    private readonly maxQueued: number,
    private readonly logger: Logger,
  ) {}

  /** Whether the channel's lane may take one more job: at most `maxQueued` wait behind the running one. */
  hasRoom(channel: string): boolean {
    return this.#queue.size(channel) <= this.maxQueued;
  }

  /**
   * Queues `job` on the channel's lane, whatever its length: the caller checked {@link hasRoom}, or
   * must not refuse. `answering` is the message the job answers, listed by {@link waitingIn} until
   * the job starts; none for work nobody typed (an automatic resume).
   */
  enqueue(channel: string, job: () => Promise<void>, answering?: InboundMessage): void {
    if (answering !== undefined) this.#waiting.set(channel, [...(this.#waiting.get(channel) ?? []), answering]);
    const started = async (): Promise<void> => {
      if (answering !== undefined) this.#started(channel, answering);
      await job();
    };
    void this.#queue.run(channel, started).catch((error: unknown) => this.logger.error({ err: error, channel }, 'a job of the channel failed unanswered'));
  }

  /** The messages waiting in the channel's lane behind what runs, oldest first. */
  waitingIn(channel: string): readonly InboundMessage[] {
    return this.#waiting.get(channel) ?? [];
  }

  #started(channel: string, message: InboundMessage): void {
    const rest = this.waitingIn(channel).filter((waiting) => waiting !== message);
    if (rest.length === 0) this.#waiting.delete(channel);
    else this.#waiting.set(channel, rest);
  }

  /** Resolves when every lane has finished its jobs. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }
}
