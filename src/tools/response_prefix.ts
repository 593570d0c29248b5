/** Reading a bounded prefix of an HTTP response body, cutting a tool's answer to a size, and showing where it was cut. */

import type { HeaderLookup } from '../core/undici_http.js';

/** The first bytes of a body; `cut` when more followed them. */
export interface Prefix {
  readonly bytes: Uint8Array;
  readonly cut: boolean;
}

/**
 * Reads at most `limit` bytes (plus one, to know that more follow), then stops reading, which
 * drops the rest of the body: a long or endless body is never buffered. Rejects when the body fails.
 */
export async function readPrefix(body: AsyncIterable<Uint8Array>, limit: number): Promise<Prefix> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const value of body) {
    const room = limit + 1 - size;
    chunks.push(value.length > room ? value.slice(0, room) : value);
    size += Math.min(value.length, room);
    if (size > limit) return { bytes: joined(chunks, size), cut: true };
  }
  return { bytes: joined(chunks, size), cut: false };
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
export function withCutMarker(body: Prefix, limit: number, headers: HeaderLookup): string {
  const decoder = new TextDecoder();
  if (!body.cut) return decoder.decode(body.bytes);
  const length = Number(headers.get('content-length') ?? Number.NaN);
  const encoded = (headers.get('content-encoding') ?? 'identity').toLowerCase() !== 'identity';
  const rest = Number.isSafeInteger(length) && length > limit && !encoded ? `${length - limit} more bytes were left out` : 'more followed';
  return `${decoder.decode(body.bytes.subarray(0, wholeCharacterEnd(body.bytes, limit)))}\n${cutMarker('response', limit, rest)}`;
}

/**
 * `text` cut to at most `limit` bytes of UTF-8, on a whole character, followed by a marker the
 * model can read with how many bytes were left out; `undefined` when it fits.
 */
export function cutToBytes(text: string, limit: number, what: 'result' | 'error'): { readonly text: string; readonly bytes: number } | undefined {
  const bytes = Buffer.from(text);
  if (bytes.length <= limit) return undefined;
  const kept = bytes.subarray(0, wholeCharacterEnd(bytes, limit)).toString('utf8');
  return { text: `${kept}\n${cutMarker(what, limit, `${bytes.length - limit} more bytes were left out`)}`, bytes: bytes.length };
}

/** The end of the last whole UTF-8 character within the first `limit` bytes of `bytes`. */
function wholeCharacterEnd(bytes: Uint8Array, limit: number): number {
  let end = limit;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return end;
}

/** What the model reads where a tool's answer was cut. */
function cutMarker(what: 'response' | 'result' | 'error', limit: number, rest: string): string {
  return `[truncated: the ${what} was cut at ${limit} bytes; ${rest}]`;
}
