import { KeyedSerialQueue } from '../core/keyed_queue.js';

/**
 * Hands values on in the order they arrived, per key, while the ones still being prepared (a
 * message whose attachments are downloading) finish side by side. A channel's later messages wait
 * for its earlier ones, so its turns run in the order people wrote them; other channels do not
 * wait. A value that is ready while nothing of its key is pending is handed on at once.
 */
export class InOrder<T> {
  readonly #queue = new KeyedSerialQueue();

  /**
   * @param deliver receives each value, in order per key.
   * @param onError is told when a preparation rejects or `deliver` throws; the values after it still go on.
   */
  constructor(
    private readonly deliver: (value: T) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Queues `value` (ready, or being prepared) behind everything queued earlier under `key`. */
  push(key: string, value: T | Promise<T>): void {
    if (this.#queue.size(key) === 0 && !(value instanceof Promise)) return this.#deliverSafely(value);
    this.#queue.run(key, async () => this.#deliverSafely(await value)).catch((error: unknown) => this.onError(error));
  }

  /** Resolves once everything queued has been handed on. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  #deliverSafely(value: T): void {
    try {
      this.deliver(value);
    } catch (error) {
      this.onError(error);
    }
  }
}
