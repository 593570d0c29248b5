/**
 * Hands values on in the order they arrived, per key, while the ones still being prepared (a
 * message whose attachments are downloading) finish side by side. A channel's later messages wait
 * for its earlier ones, so its turns run in the order people wrote them; other channels do not
 * wait. A value that is ready while nothing of its key is pending is handed on at once.
 */
export class InOrder<T> {
  readonly #pending = new Map<string, Promise<void>>();

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
    const previous = this.#pending.get(key);
    if (previous === undefined && !(value instanceof Promise)) return this.#deliverSafely(value);
    const tail: Promise<void> = (previous ?? Promise.resolve())
      .then(() => value)
      .then(
        (ready) => this.#deliverSafely(ready),
        (error: unknown) => this.onError(error),
      )
      .finally(() => {
        if (this.#pending.get(key) === tail) this.#pending.delete(key);
      });
    this.#pending.set(key, tail);
  }

  /** Resolves once everything queued so far has been handed on. */
  async idle(): Promise<void> {
    await Promise.all([...this.#pending.values()]);
  }

  #deliverSafely(value: T): void {
    try {
      this.deliver(value);
    } catch (error) {
      this.onError(error);
    }
  }
}
