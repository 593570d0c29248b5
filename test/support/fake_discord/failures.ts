import { STATUS_CODES } from 'node:http';
import type { HttpReply } from './http.js';
import type { ReceivedRequest } from './requests.js';

/** How the fake fails the requests a {@link FailureQueue} entry matches. */
export interface Failure {
  /** The status to answer: 429 gets Discord's rate-limit shape, 5xx its server-error body. */
  readonly status: number;
  /** How many matching requests fail (default 1). */
  readonly times?: number;
  /** When true the request takes effect first (a message is created or edited) and only the answer is lost. */
  readonly afterEffect?: boolean;
  /** A 429's `retry_after` and rate-limit reset, in seconds (default 0.05). */
  readonly retryAfterSeconds?: number;
}

interface Pending {
  readonly matches: (request: ReceivedRequest) => boolean;
  readonly failure: Failure;
  left: number;
}

/** Failures waiting for the requests they match, first added first used. */
export class FailureQueue {
  readonly #pending: Pending[] = [];

  /** Queues a failure for the next `times` requests that match. */
  add(matches: (request: ReceivedRequest) => boolean, failure: Failure): void {
    const times = failure.times ?? 1;
    if (!Number.isInteger(times) || times < 1) throw new Error(`times must be a positive integer, not ${times}`);
    if (failure.status < 400 || failure.status > 599) throw new Error(`a failure needs a 4xx or 5xx status, not ${failure.status}`);
    this.#pending.push({ matches, failure, left: times });
  }

  /** The failure this request gets, if any; using it counts one of its `times`. */
  take(request: ReceivedRequest): Failure | undefined {
    const index = this.#pending.findIndex((pending) => pending.matches(request));
    const pending = this.#pending[index];
    if (pending === undefined) return undefined;
    pending.left -= 1;
    if (pending.left === 0) this.#pending.splice(index, 1);
    return pending.failure;
  }
}

/** The answer Discord gives for this failure. */
export function failureReply(failure: Failure): HttpReply {
  const { status } = failure;
  if (status === 429) return rateLimited(failure.retryAfterSeconds ?? 0.05);
  if (status >= 500) return { status, body: { message: '500: Internal Server Error', code: 0 } };
  return { status, body: { message: `${status}: ${STATUS_CODES[status] ?? 'Error'}`, code: 0 } };
}

function rateLimited(seconds: number): HttpReply {
  return {
    status: 429,
    headers: {
      'retry-after': String(seconds),
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset-after': String(seconds),
      'x-ratelimit-bucket': 'fake-rate-limit-bucket',
      'x-ratelimit-scope': 'user',
    },
    body: { message: 'You are being rate limited.', retry_after: seconds, global: false },
  };
}
