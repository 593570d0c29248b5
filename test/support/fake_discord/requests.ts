/** A request as it arrives, before the fake answers it. */
export interface ReceivedRequest {
  readonly method: string;
  /** The path after `/api/v10` for REST, the whole path otherwise (such as `/attachments/…`). */
  readonly path: string;
  /** The query string, with its leading `?` (empty when there is none). */
  readonly query: string;
  /** The parsed JSON body, the raw text if it is not JSON, or undefined when empty. */
  readonly body: unknown;
}

/** A request and the status the fake answered it with, injected failures included. */
export interface RecordedRequest extends ReceivedRequest {
  readonly status: number;
  /** When the fake had received it whole, on `performance.now()`'s clock (ms). */
  readonly at: number;
}

interface Waiter {
  readonly matches: (request: RecordedRequest) => boolean;
  readonly resolve: (request: RecordedRequest) => void;
}

/** Every request in arrival order, and promises for the ones a test waits on. */
export class RequestLog {
  /** The recorded requests; the same array for the log's whole life. */
  readonly requests: RecordedRequest[] = [];
  readonly #waiters: Waiter[] = [];
  readonly #listeners: ((request: RecordedRequest) => void)[] = [];

  /** Appends a request, tells every listener and resolves every waiter it matches. */
  record(request: RecordedRequest): void {
    this.requests.push(request);
    for (const listener of this.#listeners) listener(request);
    for (let i = this.#waiters.length - 1; i >= 0; i -= 1) {
      const waiter = this.#waiters[i];
      if (waiter?.matches(request) === true) {
        this.#waiters.splice(i, 1);
        waiter.resolve(request);
      }
    }
  }

  /** Calls `listener` with each request recorded from now on, in arrival order. */
  listen(listener: (request: RecordedRequest) => void): void {
    this.#listeners.push(listener);
  }

  /** Resolves with the first recorded request that matches, already seen or still to come. */
  when(matches: (request: RecordedRequest) => boolean): Promise<RecordedRequest> {
    const seen = this.requests.find(matches);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ matches, resolve }));
  }
}
