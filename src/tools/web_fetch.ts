import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import type { ToolsSettings } from './tools_settings.js';
import { abortReason } from '../core/clock.js';
import type { JsonObject } from '../llm/protocol.js';
import { htmlToText } from './html_text.js';
import type { Tool, ToolContext, ToolOutcome } from './tool.js';
import { parseFetchUrl, refusal, type UrlGuard, type UrlRefusal } from './url_guard.js';
import { assertNever } from '../core/assert_never.js';

/** The `tools.web_fetch` settings the tool uses (the allow list goes into the guard). */
export type WebFetchSettings = Pick<ToolsSettings['web_fetch'], 'timeout_seconds' | 'max_bytes' | 'max_chars' | 'max_redirects'>;

/** How a body is turned into text: HTML is rendered, text and JSON are given as they are. */
type BodyKind = 'html' | 'text';

/** What one request came to. */
type Hop =
  | { readonly kind: 'refused'; readonly refusal: UrlRefusal }
  | { readonly kind: 'network'; readonly message: string }
  | { readonly kind: 'aborted'; readonly message: string }
  | { readonly kind: 'redirect'; readonly status: number; readonly location: string | undefined }
  | { readonly kind: 'status'; readonly status: number; readonly statusText: string }
  | { readonly kind: 'unsupported'; readonly what: string }
  | {
      readonly kind: 'body';
      readonly status: number;
      readonly statusText: string;
      readonly mediaType: string;
      readonly bodyKind: BodyKind;
      readonly charset: string | undefined;
      readonly bytes: Buffer;
      readonly cut: boolean;
    };

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

const HEADERS = {
  'user-agent': 'Holdfast-web_fetch/0.1',
  accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.1',
  'accept-encoding': 'identity',
};

/** Which bodies are read, by media type; `undefined` for images, binaries and the rest. */
function bodyKindOf(mediaType: string): BodyKind | undefined {
  if (mediaType === 'text/html' || mediaType === 'application/xhtml+xml') return 'html';
  if (mediaType.startsWith('text/')) return 'text';
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) return 'text';
  if (mediaType === 'application/xml' || mediaType.endsWith('+xml')) return 'text';
  return undefined;
}

/** `text/html; charset=ISO-8859-1` → media type `text/html`, charset `ISO-8859-1`. */
function parseContentType(header: string | undefined): { readonly mediaType: string; readonly charset: string | undefined } {
  const mediaType = (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(header ?? '')?.[1];
  return { mediaType, charset };
}

function decode(bytes: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/**
 * A `lookup` for the socket that resolves every address of the host and refuses the whole
 * request if any of them is forbidden, so the connection can only go to approved addresses.
 */
function guardedLookup(guard: UrlGuard, onRefused: (verdict: UrlRefusal) => void): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) return callback(error, '');
      const verdict =
        addresses.length === 0
          ? refusal('unresolvable', `${hostname} has no address`)
          : addresses.map((entry) => guard.checkAddress(entry.address, entry.family === 6 ? 6 : 4, hostname)).find((r) => r !== undefined);
      if (verdict !== undefined) {
        onRefused(verdict);
        return callback(Object.assign(new Error(verdict.message), { code: 'EREFUSED' }), '');
      }
      const first = addresses[0];
      if (options.all === true || first === undefined) return callback(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}

/** Runs `then` once `socket` is connected (at once if it already is). */
function whenConnected(socket: Socket, then: () => void): void {
  if (socket.connecting || socket.remoteAddress === undefined) socket.once('connect', then);
  else then();
}

/**
 * One GET of `url`. The request is sent only after the connected peer address passed the guard
 * again (DNS rebinding); redirects are reported, not followed; the body is read only for a 2xx
 * response of a readable type, and at most `maxBytes` of it.
 */
function requestOnce(url: URL, guard: UrlGuard, maxBytes: number, signal: AbortSignal): Promise<Hop> {
  if (signal.aborted) return Promise.resolve({ kind: 'aborted', message: abortReason(signal).message });
  return new Promise<Hop>((resolve) => {
    let refused: UrlRefusal | undefined;
    let settled = false;
    const options: RequestOptions = {
      method: 'GET',
      agent: false,
      headers: HEADERS,
      lookup: guardedLookup(guard, (verdict) => (refused = verdict)),
    };
    const req: ClientRequest = url.protocol === 'https:' ? httpsRequest(url, options) : httpRequest(url, options);
    const finish = (hop: Hop): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      req.destroy();
      resolve(hop);
    };
    const onAbort = (): void => finish({ kind: 'aborted', message: abortReason(signal).message });
    signal.addEventListener('abort', onAbort, { once: true });

    req.on('error', (error) => finish(refused !== undefined ? { kind: 'refused', refusal: refused } : { kind: 'network', message: error.message }));
    req.on('socket', (socket) =>
      whenConnected(socket, () => {
        const verdict = guard.checkAddress(socket.remoteAddress ?? '', socket.remoteFamily === 'IPv6' ? 6 : 4, url.hostname);
        if (verdict !== undefined) finish({ kind: 'refused', refusal: verdict });
        else req.end();
      }),
    );
    req.on('response', (res: IncomingMessage) => {
      res.on('error', (error) => finish({ kind: 'network', message: error.message }));
      const status = res.statusCode ?? 0;
      const statusText = res.statusMessage ?? '';
      if (REDIRECTS.has(status)) return finish({ kind: 'redirect', status, location: res.headers.location });
      if (status < 200 || status >= 300) return finish({ kind: 'status', status, statusText });
      const { mediaType, charset } = parseContentType(res.headers['content-type']);
      const bodyKind = bodyKindOf(mediaType);
      if (bodyKind === undefined) return finish({ kind: 'unsupported', what: `content type ${mediaType === '' ? '(none)' : mediaType}` });
      const encoding = res.headers['content-encoding'] ?? 'identity';
      if (encoding !== 'identity') return finish({ kind: 'unsupported', what: `content encoding ${encoding}` });

      const chunks: Buffer[] = [];
      let size = 0;
      const done = (cut: boolean): void => finish({ kind: 'body', status, statusText, mediaType, bodyKind, charset, bytes: Buffer.concat(chunks), cut });
      res.on('data', (chunk: Buffer) => {
        const room = maxBytes - size;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        size += Math.min(chunk.length, room);
        if (chunk.length > room) done(true);
      });
      res.on('end', () => done(false));
      res.on('close', () => finish({ kind: 'network', message: 'the connection closed before the whole body arrived' }));
    });
  });
}

/** `text` cut at `maxChars` (never inside a surrogate pair) with a marker saying how much was left out. */
function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(maxChars - 1)) ? maxChars - 1 : maxChars;
  return `${text.slice(0, end)}\n[… ${text.length - end} more characters cut]`;
}

function pageText(url: URL, hop: Extract<Hop, { kind: 'body' }>, settings: WebFetchSettings): string {
  const raw = decode(hop.bytes, hop.charset);
  const text = cutText(hop.bodyKind === 'html' ? htmlToText(raw, url) : raw, settings.max_chars);
  const cut = hop.cut ? `\n[… the body is longer than ${settings.max_bytes} bytes; only the first ${settings.max_bytes} were read]` : '';
  return `URL: ${url.href}\nStatus: ${hop.status} ${hop.statusText}\nContent-Type: ${hop.mediaType}\n\n${text}${cut}`;
}

const failed = (error: string): ToolOutcome => ({ kind: 'failed', error });

const refusedText = (url: string, verdict: UrlRefusal): string => `refused ${url}: ${verdict.message} (${verdict.reason})`;

/** Follows `start` through at most `max_redirects` redirects, every hop checked by the guard like the first. */
async function fetchPage(start: URL, settings: WebFetchSettings, guard: UrlGuard, context: ToolContext): Promise<ToolOutcome> {
  let url = start;
  for (let redirects = 0; ; redirects++) {
    const verdict = guard.checkUrl(url);
    if (verdict !== undefined) return failed(refusedText(url.href, verdict));
    const hop = await requestOnce(url, guard, settings.max_bytes, context.signal);
    switch (hop.kind) {
      case 'refused':
        return failed(refusedText(url.href, hop.refusal));
      case 'network':
        return failed(`could not fetch ${url.href}: ${hop.message}`);
      case 'aborted':
        return failed(`the fetch of ${url.href} was stopped: ${hop.message}`);
      case 'status':
        return failed(`HTTP ${hop.status} ${hop.statusText} from ${url.href}`.trimEnd());
      case 'unsupported':
        return failed(`${url.href} returned ${hop.what}, which web_fetch cannot turn into text`);
      case 'body':
        return { kind: 'result', text: pageText(url, hop, settings) };
      case 'redirect': {
        if (hop.location === undefined) return failed(`HTTP ${hop.status} from ${url.href} without a Location`);
        if (redirects >= settings.max_redirects) return failed(`too many redirects (more than ${settings.max_redirects}) from ${start.href}`);
        if (!URL.canParse(hop.location, url.href)) return failed(`${url.href} redirected to an invalid location ${JSON.stringify(hop.location)}`);
        context.logger.debug({ from: url.href, to: hop.location, status: hop.status }, 'web_fetch redirect');
        url = new URL(hop.location, url);
        break;
      }
      default:
        return assertNever(hop);
    }
  }
}

/**
 * The `web_fetch` tool: one public web page as text. Every address it connects to, on the first
 * URL and on every redirect, must pass `guard`; anything that goes wrong is a definite failure,
 * since a read changes nothing anywhere.
 */
export function createWebFetchTool(settings: WebFetchSettings, guard: UrlGuard): Tool {
  const inputSchema: JsonObject = {
    type: 'object',
    properties: { url: { type: 'string', description: 'The http or https address of the page.' } },
    required: ['url'],
    additionalProperties: false,
  };
  return {
    name: 'web_fetch',
    description:
      'Fetches a public web page over http or https and returns its text: HTML as readable text, plain text and JSON as they are. Private, loopback and cloud-metadata addresses are refused.',
    inputSchema,
    effect: 'read',
    timeoutMs: settings.timeout_seconds * 1000,
    async execute(input, context) {
      const raw = input['url'];
      if (typeof raw !== 'string') return failed('input.url must be a string');
      const parsed = parseFetchUrl(raw);
      if (!(parsed instanceof URL)) return failed(refusedText(raw, parsed));
      try {
        return await fetchPage(parsed, settings, guard, context);
      } catch (error) {
        return failed(`could not fetch ${parsed.href}: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}
