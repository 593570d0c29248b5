import { AsyncLocalStorage } from 'node:async_hooks';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * The trace context of the `tools/call` being sent. The SDK makes that call's HTTP request deep
 * inside `Client.request`, where no argument of ours reaches, so it travels in async context.
 */
const callTraceparent = new AsyncLocalStorage<string>();

/**
 * Runs `send` so that the HTTP requests it makes through {@link traceContextFetch} carry
 * `traceparent` as their `traceparent` header; with none, they carry none.
 */
export function withCallTraceContext<T>(traceparent: string | undefined, send: () => T): T {
  return traceparent === undefined ? send() : callTraceparent.run(traceparent, send);
}

/**
 * A `fetch` for the Streamable HTTP client that adds the `traceparent` header to a request made
 * within {@link withCallTraceContext}, on a copy of its headers, and passes any other request to
 * `next` as it is.
 */
export function traceContextFetch(next: FetchLike): FetchLike {
  return (url, init) => {
    const traceparent = callTraceparent.getStore();
    if (traceparent === undefined) return next(url, init);
    const headers = new Headers(init?.headers);
    headers.set('traceparent', traceparent);
    return next(url, { ...init, headers });
  };
}
