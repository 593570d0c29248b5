import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual_clock.js';
import type { JsonObject } from '../../src/llm/protocol.js';
import { runTool } from '../../src/tools/run_tool.js';
import type { ToolContext, ToolOutcome } from '../../src/tools/tool.js';
import { createUrlGuard, type UrlGuard } from '../../src/tools/url_guard.js';
import { createWebFetchTool, type WebFetchSettings } from '../../src/tools/web_fetch.js';
import { deferred } from '../support/deferred.js';
import { FileServer } from '../support/file_server.js';

type Route = (req: IncomingMessage, res: ServerResponse) => void;

/** A real HTTP server on a loopback address that records every connection and request. */
interface LocalServer {
  /** `http://host:port` followed by `path`. */
  readonly url: (path: string) => string;
  readonly port: number;
  /** The paths requested, in order. */
  readonly requests: string[];
  /** How many TCP connections were accepted. */
  readonly connections: () => number;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

async function startServer(routes: Record<string, Route>, host: '127.0.0.1' | '::1' = '127.0.0.1'): Promise<LocalServer> {
  const requests: string[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const route = routes[req.url ?? ''];
    if (route === undefined) res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
    else route(req, res);
  });
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const base = host === '::1' ? `http://[::1]:${port}` : `http://${host}:${port}`;
  return { url: (path) => `${base}${path}`, port, requests, connections: () => connections };
}

/** A port nothing listens on: one a server just let go of. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const send =
  (contentType: string, body: string | Buffer, status = 200): Route =>
  (_req, res) =>
    res.writeHead(status, { 'content-type': contentType }).end(body);

const redirect =
  (location: string, status = 302): Route =>
  (_req, res) =>
    res.writeHead(status, { location }).end();

const SETTINGS: WebFetchSettings = { timeout_seconds: 20, max_bytes: 1_000_000, max_chars: 20_000, max_redirects: 5 };
const LOOPBACK = createUrlGuard(['127.0.0.1']);

function contextWith(signal: AbortSignal): ToolContext {
  return { signal, idempotencyKey: 'k', requesterId: 'u', channel: { source: 'console', channelId: 'c' }, logger: pino({ level: 'silent' }) };
}

interface FetchOptions {
  readonly settings?: Partial<WebFetchSettings>;
  readonly guard?: UrlGuard;
  readonly signal?: AbortSignal;
  readonly clock?: ManualClock;
}

function fetchUrl(input: JsonObject, options: FetchOptions = {}): Promise<ToolOutcome> {
  const tool = createWebFetchTool({ ...SETTINGS, ...options.settings }, options.guard ?? LOOPBACK);
  return runTool(tool, input, contextWith(options.signal ?? new AbortController().signal), options.clock ?? new ManualClock());
}

const fetchText = (url: string, options: FetchOptions = {}): Promise<ToolOutcome> => fetchUrl({ url }, options);

function resultText(outcome: ToolOutcome): string {
  if (outcome.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  return outcome.text;
}

function failure(outcome: ToolOutcome): string {
  if (outcome.kind !== 'failed') throw new Error(`expected a failure, got ${JSON.stringify(outcome)}`);
  return outcome.error;
}

describe('web_fetch', () => {
  it('is a read tool named web_fetch with a url input and the configured timeout', () => {
    const tool = createWebFetchTool({ ...SETTINGS, timeout_seconds: 7.5 }, LOOPBACK);
    expect(tool).toMatchObject({ name: 'web_fetch', effect: 'read', timeoutMs: 7500 });
    expect(tool.inputSchema).toMatchObject({ type: 'object', properties: { url: { type: 'string' } }, required: ['url'] });
  });

  describe('bodies', () => {
    it('turns an HTML page into text with its title, final URL and status', async () => {
      const html = '<html><head><title>Hello &amp; welcome</title><style>b{}</style></head><body><h1>Big</h1><p>Some <i>text</i>.</p><script>x()</script></body></html>';
      const server = await startServer({ '/page': send('text/html; charset=utf-8', html) });
      const text = resultText(await fetchText(server.url('/page')));
      expect(text).toBe(`URL: ${server.url('/page')}\nStatus: 200 OK\nContent-Type: text/html\n\nHello & welcome\n\nBig\n\nSome text.`);
    });

    it('gives a served page’s text with every entity decoded, its links as text and address, without navigation or scripts', async () => {
      const files = await FileServer.start();
      try {
        const html = `<!DOCTYPE html><html><head><title>Caf&eacute; guide</title><script src="/app.js"></script><style>nav { display: flex }</style></head>
<body><nav><a href="/">Home</a> <a href="/menu">Menu</a></nav>
<main><h1>Caf&eacute; au lait</h1><p>Milk &amp; coffee &mdash; it&rsquo;s simple&hellip; 3&euro;. &copy; 2024 &#169; &#x263A;</p>
<p>Read <a href="recipes/latte.html">the latte recipe</a>.</p></main><script>track("visit")</script></body></html>`;
        const url = files.serve('/guide/cafe.html', { kind: 'file', body: html, contentType: 'text/html; charset=utf-8' });
        expect(resultText(await fetchText(url))).toBe(
          `URL: ${url}\nStatus: 200 OK\nContent-Type: text/html\n\nCafé guide\n\nCafé au lait\n\nMilk & coffee — it’s ` +
            `simple… 3€. © 2024 © ☺\n\nRead the latte recipe [${new URL('recipes/latte.html', url).href}].`,
        );
        const long = files.serve('/long.html', { kind: 'file', body: `<p>${'&eacute;'.repeat(50)}</p>`, contentType: 'text/html' });
        expect(resultText(await fetchText(long, { settings: { max_chars: 10 } }))).toMatch(/\n\né{10}\n\[… 40 more characters cut\]$/);
      } finally {
        await files.close();
      }
    });

    it('returns plain text and JSON as they are', async () => {
      const plain = 'line one\n\n   indented   line\n';
      const json = '{\n  "a": [1, 2],\n  "b": "<p>not html</p>"\n}';
      const server = await startServer({ '/plain': send('text/plain', plain), '/json': send('application/json', json), '/ld': send('application/ld+json', json) });
      expect(resultText(await fetchText(server.url('/plain')))).toMatch(/\n\nline one\n\n {3}indented {3}line\n$/);
      expect(resultText(await fetchText(server.url('/json')))).toContain(`Content-Type: application/json\n\n${json}`);
      expect(resultText(await fetchText(server.url('/ld')))).toContain(json);
    });

    it('decodes the charset the response names', async () => {
      const server = await startServer({ '/latin1': send('text/plain; charset=iso-8859-1', Buffer.from([0x63, 0x61, 0x66, 0xe9])) });
      expect(resultText(await fetchText(server.url('/latin1')))).toMatch(/\n\ncafé$/);
    });

    it('stops reading at max_bytes and says the body was cut', async () => {
      const body = 'a'.repeat(60) + 'b'.repeat(60);
      const server = await startServer({ '/big': send('text/plain', body), '/exact': send('text/plain', 'c'.repeat(100)) });
      const text = resultText(await fetchText(server.url('/big'), { settings: { max_bytes: 100 } }));
      expect(text).toContain(`\n\n${'a'.repeat(60)}${'b'.repeat(40)}\n[… the body is longer than 100 bytes; only the first 100 were read]`);
      expect(text).not.toContain('b'.repeat(41));
      expect(resultText(await fetchText(server.url('/exact'), { settings: { max_bytes: 100 } }))).toMatch(/\n\nc{100}$/);
    });

    it('cuts the text at max_chars and says how much was left out', async () => {
      const server = await startServer({ '/long': send('text/plain', '0123456789'.repeat(10)), '/page': send('text/html', `<p>${'x'.repeat(30)}</p>`) });
      expect(resultText(await fetchText(server.url('/long'), { settings: { max_chars: 25 } }))).toMatch(/\n\n0123456789012345678901234\n\[… 75 more characters cut\]$/);
      expect(resultText(await fetchText(server.url('/page'), { settings: { max_chars: 10 } }))).toMatch(/\n\nx{10}\n\[… 20 more characters cut\]$/);
    });

    it('fails on an image or binary, naming the type, and on an encoding it did not ask for', async () => {
      const server = await startServer({
        '/png': send('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47])),
        '/bin': send('application/octet-stream', Buffer.from([0, 1, 2])),
        '/none': (_req, res) => res.end('no type'),
        '/gzip': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end('zz'),
      });
      expect(failure(await fetchText(server.url('/png')))).toContain('content type image/png');
      expect(failure(await fetchText(server.url('/bin')))).toContain('content type application/octet-stream');
      expect(failure(await fetchText(server.url('/none')))).toContain('content type (none)');
      expect(failure(await fetchText(server.url('/gzip')))).toContain('content encoding gzip');
    });
  });

  describe('statuses and errors', () => {
    it('fails with the status on 404 and 500', async () => {
      const server = await startServer({ '/boom': send('text/plain', 'oops', 500) });
      expect(failure(await fetchText(server.url('/missing')))).toBe(`HTTP 404 Not Found from ${server.url('/missing')}`);
      expect(failure(await fetchText(server.url('/boom')))).toBe(`HTTP 500 Internal Server Error from ${server.url('/boom')}`);
    });

    it('fails, never uncertain, when nothing listens', async () => {
      const port = await closedPort();
      expect(failure(await fetchText(`http://127.0.0.1:${port}/`))).toMatch(/^could not fetch http:\/\/127\.0\.0\.1:\d+\/: .*ECONNREFUSED/);
    });

    it('fails when the connection closes before the body is complete', async () => {
      const server = await startServer({
        '/short': (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
          res.write('only part', () => res.socket?.destroy());
        },
      });
      expect(failure(await fetchText(server.url('/short')))).toContain(`could not fetch ${server.url('/short')}`);
    });

    it('rejects input without a url through the schema', async () => {
      expect(failure(await fetchUrl({}))).toContain('invalid input for web_fetch');
      expect(failure(await fetchUrl({ url: 42 }))).toContain('invalid input for web_fetch');
    });
  });

  describe('the guard', () => {
    it('refuses a loopback URL without the allow list before any connection reaches the server', async () => {
      const server = await startServer({ '/page': send('text/plain', 'secret') });
      const error = failure(await fetchText(server.url('/page'), { guard: createUrlGuard([]) }));
      expect(error).toBe(`refused ${server.url('/page')}: 127.0.0.1 is a private, loopback, link-local or reserved address (forbidden_address)`);
      expect(server.requests).toEqual([]);
      expect(server.connections()).toBe(0);
      // The same URL with the allow list goes through.
      expect(resultText(await fetchText(server.url('/page')))).toContain('secret');
    });

    it('refuses loopback in other spellings without the allow list', async () => {
      const server = await startServer({ '/': send('text/plain', 'secret') });
      const strict = createUrlGuard([]);
      for (const host of ['2130706433', '0177.0.0.1', '0x7f.1', '127.1', '[::ffff:127.0.0.1]']) {
        expect(failure(await fetchText(`http://${host}:${server.port}/`, { guard: strict }))).toContain('(forbidden_address)');
      }
      expect(server.connections()).toBe(0);
    });

    it('refuses a host name whose address is forbidden at lookup, before connecting', async () => {
      const server = await startServer({ '/': send('text/plain', 'secret') });
      const error = failure(await fetchText(`http://localhost:${server.port}/`, { guard: createUrlGuard([]) }));
      expect(error).toMatch(/^refused http:\/\/localhost:\d+\/: .* is a private, loopback, link-local or reserved address \(forbidden_address\)$/);
      expect(server.connections()).toBe(0);
      // Allowed by name, the same host is fetched.
      expect(resultText(await fetchText(`http://LocalHost:${server.port}/`, { guard: createUrlGuard(['localhost']) }))).toContain('secret');
    });

    it('refuses cloud metadata host names without looking them up', async () => {
      expect(failure(await fetchText('http://metadata.google.internal/computeMetadata/v1/'))).toContain('(forbidden_host)');
      expect(failure(await fetchText('http://169.254.169.254/latest/meta-data/'))).toContain('(forbidden_address)');
    });

    it('refuses non-http schemes and credentials', async () => {
      expect(failure(await fetchText('file:///etc/passwd'))).toBe('refused file:///etc/passwd: only http and https URLs can be fetched, not file: (scheme)');
      expect(failure(await fetchText('ftp://127.0.0.1/'))).toContain('(scheme)');
      expect(failure(await fetchText('http://u:p@127.0.0.1/'))).toContain('(credentials)');
      expect(failure(await fetchText('not a url'))).toContain('(invalid_url)');
    });

    it('checks the connected address again and sends nothing when it is refused (DNS rebinding)', async () => {
      const server = await startServer({ '/': send('text/plain', 'secret') });
      const connected = deferred();
      const real = createUrlGuard([]);
      const seen = new Set<string>();
      // A resolver that answers differently the second time looks, to the guard, like this: the
      // lookup's answer is approved, the address actually connected to is not.
      const rebinding: UrlGuard = {
        checkUrl: (url) => real.checkUrl(url),
        checkAddress: (address, family, host) => {
          if (!seen.has(address)) {
            seen.add(address);
            return undefined;
          }
          connected.resolve();
          return real.checkAddress(address, family, host);
        },
      };
      const error = failure(await fetchText(`http://localhost:${server.port}/`, { guard: rebinding }));
      await connected.promise;
      expect(error).toContain('(forbidden_address)');
      expect(server.requests).toEqual([]);
    });
  });

  describe('redirects', () => {
    it('follows a chain of relative and absolute redirects to the final page', async () => {
      const server: LocalServer = await startServer({
        '/a': redirect('/b', 301),
        '/b': (req, res) => redirect(server.url('/c'), 307)(req, res),
        '/c': redirect('d?x=1', 303),
        '/d?x=1': send('text/plain', 'arrived'),
      });
      const text = resultText(await fetchText(server.url('/a')));
      expect(text).toBe(`URL: ${server.url('/d?x=1')}\nStatus: 200 OK\nContent-Type: text/plain\n\narrived`);
      expect(server.requests).toEqual(['/a', '/b', '/c', '/d?x=1']);
    });

    it('refuses a redirect to the metadata address', async () => {
      const server = await startServer({ '/go': redirect('http://169.254.169.254/latest/meta-data/') });
      expect(failure(await fetchText(server.url('/go')))).toBe(
        'refused http://169.254.169.254/latest/meta-data/: 169.254.169.254 is a private, loopback, link-local or reserved address (forbidden_address)',
      );
    });

    it('refuses a redirect to [::1] when only 127.0.0.1 is allowed, without contacting it', async () => {
      const v6 = await startServer({ '/': send('text/plain', 'internal') }, '::1');
      const server = await startServer({ '/go': redirect(v6.url('/')) });
      expect(failure(await fetchText(server.url('/go')))).toContain('::1 is a private, loopback, link-local or reserved address (forbidden_address)');
      expect(server.requests).toEqual(['/go']);
      expect(v6.connections()).toBe(0);
      // Allowed, the same redirect is followed.
      expect(resultText(await fetchText(server.url('/go'), { guard: createUrlGuard(['127.0.0.1', '::1']) }))).toContain('internal');
    });

    it('refuses a redirect to another scheme or with credentials', async () => {
      const server = await startServer({ '/file': redirect('file:///etc/passwd'), '/creds': redirect('http://u:p@example.com/') });
      expect(failure(await fetchText(server.url('/file')))).toContain('(scheme)');
      expect(failure(await fetchText(server.url('/creds')))).toContain('(credentials)');
    });

    it('gives up after max_redirects', async () => {
      const loop: Record<string, Route> = {};
      for (let i = 0; i < 10; i++) loop[`/r${i}`] = redirect(`/r${i + 1}`);
      const server = await startServer(loop);
      expect(failure(await fetchText(server.url('/r0'), { settings: { max_redirects: 2 } }))).toBe(`too many redirects (more than 2) from ${server.url('/r0')}`);
      expect(server.requests).toEqual(['/r0', '/r1', '/r2']);
      expect(failure(await fetchText(server.url('/r0'), { settings: { max_redirects: 0 } }))).toContain('too many redirects');
    });

    it('fails on a redirect without a Location', async () => {
      const server = await startServer({ '/nowhere': (_req, res) => res.writeHead(302).end() });
      expect(failure(await fetchText(server.url('/nowhere')))).toBe(`HTTP 302 from ${server.url('/nowhere')} without a Location`);
    });
  });

  describe('stopping', () => {
    it('stops at once when the signal aborts and the server sees the connection close', async () => {
      const arrived = deferred();
      const closed = deferred();
      const server = await startServer({
        '/slow': (req, res) => {
          req.socket.once('close', closed.resolve);
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('first part', () => arrived.resolve());
        },
      });
      const controller = new AbortController();
      const outcome = fetchText(server.url('/slow'), { signal: controller.signal });
      await arrived.promise;
      controller.abort(new Error('the user said stop'));
      expect(failure(await outcome)).toBe(`the fetch of ${server.url('/slow')} was stopped: the user said stop`);
      await closed.promise;
    });

    it('stops when the timeout passes on the clock while the server has not answered', async () => {
      const arrived = deferred();
      const closed = deferred();
      const server = await startServer({
        '/never': (req) => {
          req.socket.once('close', closed.resolve);
          arrived.resolve();
        },
      });
      const clock = new ManualClock();
      const outcome = fetchText(server.url('/never'), { clock, settings: { timeout_seconds: 3 } });
      await arrived.promise;
      await clock.advance(3000);
      expect(failure(await outcome)).toBe(`the fetch of ${server.url('/never')} was stopped: web_fetch took longer than 3000 ms`);
      await closed.promise;
    });

    it('does not start when the signal has already aborted', async () => {
      const server = await startServer({ '/': send('text/plain', 'x') });
      const controller = new AbortController();
      controller.abort(new Error('already stopped'));
      expect(failure(await fetchText(server.url('/'), { signal: controller.signal }))).toContain('was stopped: already stopped');
      expect(server.connections()).toBe(0);
    });
  });
});
