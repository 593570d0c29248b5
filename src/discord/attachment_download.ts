import { abortReason, type Clock } from '../core/clock.js';

/** What one bounded download came to. */
export type Download = { readonly kind: 'complete'; readonly bytes: Uint8Array } | { readonly kind: 'too_large' } | { readonly kind: 'failed'; readonly detail: string };

/** How much one download may read, and for how long. */
export interface DownloadBounds {
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

/**
 * GETs `url` with the global fetch and keeps at most `maxBytes` of its body: a larger
 * Content-Length ends the download before the body is read, and a body that grows past the limit
 * is cancelled the moment it does, so no more than the limit is ever buffered. The request is
 * abandoned when `signal` aborts or `timeoutMs` passes on `clock`. Never rejects.
 */
export async function downloadBounded(url: string, bounds: DownloadBounds, clock: Clock, signal: AbortSignal): Promise<Download> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const timer = new AbortController();
  clock.sleep(bounds.timeoutMs, timer.signal).then(
    () => controller.abort(new DOMException(`the download took longer than ${bounds.timeoutMs} ms`, 'TimeoutError')),
    () => undefined,
  );
  try {
    const response = await fetch(url, { signal: controller.signal });
    if (!response.ok) {
      await response.body?.cancel();
      return { kind: 'failed', detail: `HTTP ${response.status}` };
    }
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > bounds.maxBytes) {
      controller.abort();
      return { kind: 'too_large' };
    }
    const bytes = await readAtMost(response.body, bounds.maxBytes);
    if (bytes === undefined) controller.abort();
    return bytes === undefined ? { kind: 'too_large' } : { kind: 'complete', bytes };
  } catch (error) {
    return { kind: 'failed', detail: controller.signal.aborted ? abortReason(controller.signal).message : errorText(error) };
  } finally {
    timer.abort();
    signal.removeEventListener('abort', onAbort);
  }
}

/** The whole body, or `undefined` (with the stream cancelled) as soon as it is longer than `limit`. */
async function readAtMost(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array | undefined> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/** An error's message with its cause's, which is where fetch puts what went wrong on the network. */
function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}
