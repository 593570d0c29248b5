/** Reading a bounded prefix of an HTTP response body, and showing where it was cut. */

/** The first bytes of a body; `cut` when more followed them. */
export interface Prefix {
  readonly bytes: Uint8Array;
  readonly cut: boolean;
}

/**
 * Reads at most `limit` bytes (plus one, to know that more follow), then cancels the rest of the
 * stream: a long or endless body is never buffered. Rejects when the stream fails.
 */
export async function readPrefix(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Prefix> {
  if (body === null) return { bytes: new Uint8Array(0), cut: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: joined(chunks, size), cut: false };
    const room = limit + 1 - size;
    chunks.push(value.length > room ? value.slice(0, room) : value);
    size += Math.min(value.length, room);
    if (size > limit) {
      reader.cancel().catch(() => undefined);
      return { bytes: joined(chunks, size), cut: true };
    }
  }
}

function joined(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/**
 * The body as text; a cut body ends on a whole UTF-8 character, followed by a marker with how
 * many bytes were left out when an unencoded `content-length` tells, else that more followed.
 */
export function withCutMarker(body: Prefix, limit: number, headers: Headers): string {
  const decoder = new TextDecoder();
  if (!body.cut) return decoder.decode(body.bytes);
  let end = limit;
  while (end > 0 && ((body.bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  const length = Number(headers.get('content-length') ?? Number.NaN);
  const encoded = (headers.get('content-encoding') ?? 'identity').toLowerCase() !== 'identity';
  const rest = Number.isSafeInteger(length) && length > limit && !encoded ? `${length - limit} more bytes were left out` : 'more followed';
  return `${decoder.decode(body.bytes.subarray(0, end))}\n[truncated: the response was cut at ${limit} bytes; ${rest}]`;
}
