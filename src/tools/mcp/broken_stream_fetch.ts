import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * A `fetch` for the Streamable HTTP client that calls `onBroken` when an event stream the server
 * answers with fails before it ends. The client only reports such a break as an error and leaves
 * the calls waiting on that stream pending; the connection uses this to close itself instead, so
 * that each call in flight is settled as cut off. A stream that ends normally is not reported.
 */
export function brokenStreamFetch(onBroken: (error: unknown) => void): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    const type = response.headers.get('content-type') ?? '';
    if (response.body === null || !type.toLowerCase().startsWith('text/event-stream')) return response;
    return new Response(watched(response.body, onBroken), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function watched(body: ReadableStream<Uint8Array>, onBroken: (error: unknown) => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read();
        if (chunk.done) controller.close();
        else controller.enqueue(chunk.value);
      } catch (error) {
        controller.error(error);
        onBroken(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
