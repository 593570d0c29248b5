import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { pino } from 'pino';
import { errors as undiciErrors } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/app/config_schema.js';
import { ManualClock } from '../support/manual_clock.js';
import type { JsonObject } from '../../src/llm/protocol.js';
import { classifyFetchFailure } from '../../src/tools/http_failure.js';
import { createHttpTool, type HttpToolConfig } from '../../src/tools/http_tool.js';
import { runTool } from '../../src/tools/run_tool.js';
import type { Tool, ToolContext, ToolOutcome } from '../../src/tools/tool.js';
import { deferred } from '../support/deferred.js';

/** A request as the test server saw it. */
interface Recorded {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** How the test server answers one request. */
type Reply =
  | {
      readonly kind: 'respond';
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body?: string;
      /** Nothing is sent until this resolves. */
      readonly release?: Promise<void>;
      /** `end` (default) finishes the response; `destroy` kills the socket once the body is out; `hold` keeps it open. */
      readonly then?: 'end' | 'destroy' | 'hold';
    }
  /** Never answers: no status, no headers. */
  | { readonly kind: 'hold' }
  /** Destroys the connection without answering. */
  | { readonly kind: 'hang_up' };

/** A real HTTP server on 127.0.0.1 that records every request and answers as the test scripts. */
class TestServer {
  readonly requests: Recorded[] = [];
  reply: Reply = { kind: 'respond', body: 'ok' };
  /** The TCP connections clients opened to it. */
  connections = 0;
  readonly #server: Server = createServer((req, res) => void this.#handle(req, res));
  #waiters: { readonly count: number; readonly resolve: () => void }[] = [];

  static async start(): Promise<TestServer> {
    const server = new TestServer();
    server.#server.on('connection', () => server.connections++);
    await new Promise<void>((resolve) => server.#server.listen(0, '127.0.0.1', resolve));
    return server;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Resolves once `count` requests have arrived in full. */
  whenRequests(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    const ready = this.#waiters.filter((w) => this.requests.length >= w.count);
    this.#waiters = this.#waiters.filter((w) => this.requests.length < w.count);
    for (const waiter of ready) waiter.resolve();
    const reply = this.reply;
    switch (reply.kind) {
      case 'hold':
        return;
      case 'hang_up':
        req.socket.destroy();
        return;
      case 'respond': {
        await reply.release;
        res.writeHead(reply.status ?? 200, reply.headers);
        const then = reply.then ?? 'end';
        if (then === 'end') res.end(reply.body ?? '');
        else if (then === 'destroy') res.write(reply.body ?? '', () => res.socket?.destroy());
        else if (reply.body !== undefined) res.write(reply.body);
        else res.flushHeaders();
        return;
      }
      default: {
        const unreachable: never = reply;
        return unreachable;
      }
    }
  }
}

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const PARAMETERS = {
  type: 'object',
  properties: { id: { type: 'string' }, note: { type: 'string' }, count: { type: 'integer' } },
  additionalProperties: true,
};

/** One `tools.http` entry through the real config schema, so every default is filled in as in production. */
function toolConfig(fields: Record<string, unknown>): HttpToolConfig {
  const config = configSchema.parse({ tools: { http: [{ name: 'items', description: 'Items API', effect: 'read', timeout_seconds: 5, parameters: PARAMETERS, ...fields }] } });
  return config.tools.http[0]!;
}

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    signal: new AbortController().signal,
    idempotencyKey: 'key-1',
    requesterId: 'u',
    channel: { source: 'console', channelId: 'c' },
    logger: pino({ level: 'silent' }),
    ...overrides,
  };
}

describe('configured HTTP tools', () => {
  let server: TestServer;
  let clock: ManualClock;
  beforeEach(async () => {
    server = await TestServer.start();
    clock = new ManualClock();
  });
  afterEach(() => server.close());

  const tool = (fields: Record<string, unknown> = {}): Tool => createHttpTool(toolConfig({ url: `${server.origin}/items`, ...fields }));
  const call = (t: Tool, input: JsonObject = {}, ctx: ToolContext = context()): Promise<ToolOutcome> => runTool(t, input, ctx, clock);
  /** Runs a call whose server holds on until the tool's timeout passes. */
  const callUntilTimeout = async (t: Tool, input: JsonObject = {}): Promise<ToolOutcome> => {
    const outcome = call(t, input);
    await server.whenRequests(1);
    await clock.whenSleeping();
    await clock.advance(t.timeoutMs);
    return outcome;
  };

  describe('the tool itself', () => {
    it('shows the model the configured parameters unchanged, and carries name, description, effect and timeout', () => {
      const parameters = { type: 'object', properties: { city: { type: 'string', description: 'A city', enum: ['Oslo', 'Rome'] } }, required: ['city'] };
      const t = createHttpTool(toolConfig({ url: 'https://api.example.org/weather', parameters, effect: 'idempotent', idempotency_header: 'Idempotency-Key', timeout_seconds: 2.5 }));
      expect(t.inputSchema).toEqual(parameters);
      expect({ name: t.name, description: t.description, effect: t.effect, timeoutMs: t.timeoutMs }).toEqual({ name: 'items', description: 'Items API', effect: 'idempotent', timeoutMs: 2500 });
    });
  });

  describe('the request', () => {
    it('sends GET input as query parameters: arrays as repeated keys, objects as JSON', async () => {
      expect(await call(tool(), { q: 'x y&z', tags: ['a', 'b'], count: 5, on: true, filter: { a: 1 } })).toEqual({ kind: 'result', text: 'ok' });
      const [request] = server.requests;
      expect(request?.method).toBe('GET');
      expect(request?.body).toBe('');
      const url = new URL(request?.url ?? '', server.origin);
      expect(url.pathname).toBe('/items');
      expect(url.searchParams.get('q')).toBe('x y&z');
      expect(url.searchParams.getAll('tags')).toEqual(['a', 'b']);
      expect(url.searchParams.get('count')).toBe('5');
      expect(url.searchParams.get('on')).toBe('true');
      expect(url.searchParams.get('filter')).toBe('{"a":1}');
    });

    it('keeps a query already in the configured URL and adds the input to it (DELETE too)', async () => {
      await call(tool({ method: 'DELETE', url: `${server.origin}/items?version=2` }), { id: 'x' });
      expect(server.requests[0]).toMatchObject({ method: 'DELETE', url: '/items?version=2&id=x', body: '' });
    });

    it.each(['POST', 'PUT', 'PATCH'] as const)('sends %s input as a JSON body with content-type application/json', async (method) => {
      const input = { note: 'hello', count: 2, tags: ['a'], nested: { b: null } };
      await call(tool({ method, effect: 'write' }), input);
      const [request] = server.requests;
      expect(request).toMatchObject({ method, url: '/items' });
      expect(request?.headers['content-type']).toBe('application/json');
      expect(JSON.parse(request?.body ?? '')).toEqual(input);
    });

    it('keeps a configured content-type on a JSON body instead of replacing it', async () => {
      await call(tool({ method: 'POST', effect: 'write', headers: { 'Content-Type': 'application/vnd.api+json' } }), { note: 'n' });
      expect(server.requests[0]?.headers['content-type']).toBe('application/vnd.api+json');
      expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({ note: 'n' });
    });

    it('sends the configured headers', async () => {
      await call(tool({ method: 'POST', effect: 'write', headers: { Authorization: 'Bearer secret-token', 'X-Team': 'blue' } }), {});
      expect(server.requests[0]?.headers).toMatchObject({ authorization: 'Bearer secret-token', 'x-team': 'blue' });
    });

    it('URL-encodes placeholders and does not send their fields again, in the query or in the body', async () => {
      const id = 'a/b ?&#c d';
      await call(tool({ url: `${server.origin}/items/{id}/notes/{count}` }), { id, count: 7, note: 'n' });
      await call(tool({ method: 'POST', effect: 'write', url: `${server.origin}/items/{id}/notes/{count}` }), { id, count: 7, note: 'n' });
      const [get, post] = server.requests;
      expect(get?.url).toBe('/items/a%2Fb%20%3F%26%23c%20d/notes/7?note=n');
      expect(post?.url).toBe('/items/a%2Fb%20%3F%26%23c%20d/notes/7');
      expect(JSON.parse(post?.body ?? '')).toEqual({ note: 'n' });
    });

    it.each(['..', '.', ''])('refuses a URL path field that is %j: nothing reaches the server, and the model is told which field', async (id) => {
      const t = tool({ url: `${server.origin}/users/{id}/page`, headers: { Authorization: 'Bearer secret-token' } });
      const outcome = await call(t, { id });
      expect(outcome).toEqual({ kind: 'failed', error: expect.stringContaining('was not sent: invalid input: the URL path field "id" may not be empty') as unknown });
      expect(server.requests).toEqual([]);
    });

    it('refuses path fields that make a dot segment with the text beside them or together, naming each', async () => {
      expect(await call(tool({ method: 'POST', effect: 'write', url: `${server.origin}/users/.{id}/page` }), { id: '.' })).toEqual({
        kind: 'failed',
        error: expect.stringContaining('the URL path field "id" may not') as unknown,
      });
      expect(await call(tool({ url: `${server.origin}/files/{id}{note}/raw` }), { id: '.', note: '.' })).toEqual({
        kind: 'failed',
        error: expect.stringContaining('the URL path fields "id", "note" may not') as unknown,
      });
      expect(server.requests).toEqual([]);
    });

    it('sends dotted values that stay inside their path segment, and dots in the query as they are', async () => {
      await call(tool({ url: `${server.origin}/users/{id}/page` }), { id: '...' });
      await call(tool({ url: `${server.origin}/users/{id}/page` }), { id: '%2e%2e' });
      await call(tool({ url: `${server.origin}/users/{id}.json` }), { id: 'v1.2' });
      await call(tool({ url: `${server.origin}/search?q={note}` }), { note: '..' });
      expect(server.requests.map((r) => r.url)).toEqual(['/users/.../page', '/users/%252e%252e/page', '/users/v1.2.json', '/search?q=..']);
    });

    it('fails a call whose placeholder field is missing, and sends nothing', async () => {
      const outcome = await call(tool({ method: 'POST', effect: 'write', url: `${server.origin}/items/{id}` }), { note: 'n' });
      expect(outcome).toEqual({ kind: 'failed', error: expect.stringContaining('"id", which is missing') as unknown });
      expect(server.requests).toEqual([]);
    });

    it('fails a call whose URL is invalid once filled in, and sends nothing', async () => {
      const outcome = await call(tool({ effect: 'write', url: 'http://{id}/items' }), { id: 'not a host' });
      expect(outcome).toEqual({ kind: 'failed', error: expect.stringContaining('the URL is invalid') as unknown });
      expect(server.requests).toEqual([]);
    });

    it('fails a call whose URL carries credentials, and sends nothing', async () => {
      const outcome = await call(tool({ url: `http://user:secret@${server.origin.slice('http://'.length)}/items` }), {});
      expect(outcome).toEqual({ kind: 'failed', error: expect.stringContaining('was not sent') as unknown });
      expect(outcome.kind !== 'result' && outcome.error).not.toContain('secret');
      expect(server.requests).toEqual([]);
    });

    it('fails a call of an idempotent tool whose idempotency header name is invalid, and sends nothing', async () => {
      const outcome = await call(tool({ method: 'PUT', effect: 'idempotent', idempotency_header: 'Bad Header' }), {});
      expect(outcome).toEqual({ kind: 'failed', error: expect.stringContaining('was not sent') as unknown });
      expect(server.requests).toEqual([]);
    });

    it('fails a call whose configured header is invalid, sends nothing, and does not quote the value', async () => {
      const outcome = await call(tool({ method: 'POST', effect: 'write', headers: { Authorization: 'Bearer s3\ncret' } }), {});
      expect(outcome).toEqual({ kind: 'failed', error: expect.stringContaining('was not sent') as unknown });
      expect(outcome.kind !== 'result' && outcome.error).not.toContain('s3');
      expect(server.requests).toEqual([]);
    });

    it('leaves input that does not match the schema to runTool: failed, before any request', async () => {
      const outcome = await call(tool({ method: 'POST', effect: 'write' }), { count: 'three' });
      expect(outcome).toEqual({ kind: 'failed', error: expect.stringContaining('invalid input for items') as unknown });
      expect(server.requests).toEqual([]);
    });

    it('sends the idempotency key in the configured header: the same key again on a repeat, another for another call', async () => {
      const t = tool({ method: 'POST', effect: 'idempotent', idempotency_header: 'Idempotency-Key' });
      await call(t, {}, context({ idempotencyKey: 'op-1' }));
      await call(t, {}, context({ idempotencyKey: 'op-1' }));
      await call(t, {}, context({ idempotencyKey: 'op-2' }));
      expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['op-1', 'op-1', 'op-2']);
    });

    it('sends no idempotency header for a write tool', async () => {
      await call(tool({ method: 'POST', effect: 'write', idempotency_header: 'Idempotency-Key' }), {});
      expect(server.requests[0]?.headers['idempotency-key']).toBeUndefined();
    });

    it('sends the call’s trace context as the traceparent header, in place of a configured one, so the endpoint’s spans join the turn’s trace', async () => {
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      await call(tool(), {}, context({ traceparent }));
      await call(tool({ method: 'POST', effect: 'write', headers: { TraceParent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } }), {}, context({ traceparent }));
      expect(server.requests.map((r) => r.headers.traceparent)).toEqual([traceparent, traceparent]);
    });

    it('sends no traceparent header when the call has no trace context (tracing off)', async () => {
      await call(tool(), {});
      await call(tool({ method: 'POST', effect: 'idempotent', idempotency_header: 'Idempotency-Key' }), {});
      expect(server.requests.map((r) => r.headers.traceparent)).toEqual([undefined, undefined]);
    });
  });

  describe('a 2xx response', () => {
    it('is the result: the body as text', async () => {
      server.reply = { kind: 'respond', status: 201, headers: { 'content-type': 'application/json' }, body: '{"id":"i-1"}' };
      expect(await call(tool({ method: 'POST', effect: 'write' }), {})).toEqual({ kind: 'result', text: '{"id":"i-1"}' });
    });

    it('arrives in time when the server answers just before the timeout', async () => {
      const gate = deferred();
      server.reply = { kind: 'respond', body: 'late but fine', release: gate.promise };
      const t = tool();
      const outcome = call(t);
      await server.whenRequests(1);
      await clock.advance(t.timeoutMs - 1);
      gate.resolve();
      expect(await outcome).toEqual({ kind: 'result', text: 'late but fine' });
    });

    it('is cut at max_response_bytes with a marker saying how many bytes were left out', async () => {
      server.reply = { kind: 'respond', headers: { 'content-length': '1000' }, body: 'a'.repeat(1000) };
      const outcome = await call(tool({ max_response_bytes: 100 }));
      expect(outcome).toEqual({ kind: 'result', text: `${'a'.repeat(100)}\n[truncated: the response was cut at 100 bytes; 900 more bytes were left out]` });
    });

    it('stops reading at max_response_bytes: a body that never ends still gives a result, marked as cut', async () => {
      server.reply = { kind: 'respond', body: 'b'.repeat(300), then: 'hold' };
      const outcome = await call(tool({ max_response_bytes: 100 }));
      expect(outcome).toEqual({ kind: 'result', text: `${'b'.repeat(100)}\n[truncated: the response was cut at 100 bytes; more followed]` });
    });

    it('is not cut when it is exactly max_response_bytes long', async () => {
      server.reply = { kind: 'respond', body: 'c'.repeat(100) };
      expect(await call(tool({ max_response_bytes: 100 }))).toEqual({ kind: 'result', text: 'c'.repeat(100) });
    });

    it('is cut on a whole UTF-8 character', async () => {
      server.reply = { kind: 'respond', body: 'é'.repeat(100) };
      const outcome = await call(tool({ max_response_bytes: 51 }));
      expect(outcome.kind === 'result' && outcome.text.split('\n')[0]).toBe('é'.repeat(25));
    });
  });

  describe('a response that is not 2xx', () => {
    it('4xx fails with the status and a short excerpt of the body', async () => {
      server.reply = { kind: 'respond', status: 404, body: `no such item ${'x'.repeat(2000)}` };
      const outcome = await call(tool({ method: 'POST', effect: 'write' }), {});
      expect(outcome.kind).toBe('failed');
      const error = outcome.kind === 'failed' ? outcome.error : '';
      expect(error).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+ answered HTTP 404 Not Found\. The server said: no such item x/);
      expect(error).toContain('no such item xxx');
      expect(error).not.toContain('x'.repeat(301));
      expect(error.length).toBeLessThan(420);
    });

    it('3xx is not followed: uncertain for a write (a 303 after a POST usually means it happened), failed for a read', async () => {
      server.reply = { kind: 'respond', status: 303, headers: { location: '/elsewhere' }, body: 'moved' };
      expect(await call(tool({ method: 'POST', effect: 'write' }), {})).toEqual({ kind: 'uncertain', error: expect.stringContaining('HTTP 303') as unknown });
      expect(await call(tool({ method: 'GET', effect: 'read' }), {})).toEqual({ kind: 'failed', error: expect.stringContaining('HTTP 303') as unknown });
      expect(server.requests.map((r) => r.url)).toEqual(['/items', '/items']);
    });

    it('tells the model where a 3xx pointed, or that it pointed nowhere', async () => {
      server.reply = { kind: 'respond', status: 302, headers: { location: '/elsewhere' } };
      expect(await call(tool(), {})).toEqual({ kind: 'failed', error: expect.stringContaining('(a redirect to /elsewhere, not followed)') as unknown });
      server.reply = { kind: 'respond', status: 300 };
      expect(await call(tool(), {})).toEqual({ kind: 'failed', error: expect.stringContaining('HTTP 300 Multiple Choices (a redirect, not followed)') as unknown });
    });

    it.each([
      ['write', 'uncertain'],
      ['idempotent', 'uncertain'],
      ['read', 'failed'],
    ] as const)('5xx for a %s tool is %s', async (effect, kind) => {
      server.reply = { kind: 'respond', status: 503, body: 'overloaded' };
      const outcome = await call(tool({ method: effect === 'read' ? 'GET' : 'POST', effect, idempotency_header: 'Idempotency-Key' }), {});
      expect(outcome).toEqual({ kind, error: expect.stringContaining('HTTP 503') as unknown });
      expect(outcome.kind !== 'result' && outcome.error).toContain('overloaded');
    });
  });

  describe('the connection', () => {
    it('is kept alive: calls to one origin, whatever they answered, go over one TCP connection', async () => {
      const t = tool({ method: 'POST', effect: 'write' });
      // Undici hands a connection back to its pool on the event loop's next turn, as the engine's durable writes give it between calls.
      const callAfterATurn = async (input: JsonObject): Promise<ToolOutcome> => {
        await nextMacrotask();
        return call(t, input);
      };
      expect(await callAfterATurn({ note: 'a' })).toEqual({ kind: 'result', text: 'ok' });
      server.reply = { kind: 'respond', status: 404, body: 'no such item' };
      expect((await callAfterATurn({ note: 'b' })).kind).toBe('failed');
      server.reply = { kind: 'respond', status: 303, headers: { location: '/elsewhere' }, body: 'moved' };
      expect((await callAfterATurn({ note: 'c' })).kind).toBe('uncertain');
      server.reply = { kind: 'respond', body: 'again' };
      expect(await callAfterATurn({ note: 'd' })).toEqual({ kind: 'result', text: 'again' });
      expect(server.requests.map((r) => JSON.parse(r.body) as unknown)).toEqual([{ note: 'a' }, { note: 'b' }, { note: 'c' }, { note: 'd' }]);
      expect(server.connections).toBe(1);
    });
  });

  describe('a request that never left', () => {
    it('fails on connection refused, even for a write', async () => {
      const outcome = await call(tool({ method: 'POST', effect: 'write', url: `http://127.0.0.1:${await closedPort()}/items` }), {});
      expect(outcome).toEqual({ kind: 'failed', error: expect.stringContaining('connection refused') as unknown });
    });

    it('fails on a DNS failure, even for a write', async () => {
      const outcome = await call(tool({ method: 'POST', effect: 'write', url: 'http://does-not-exist.invalid/' }), {});
      expect(outcome).toEqual({ kind: 'failed', error: expect.stringContaining('before the request was sent') as unknown });
    });

    it('fails when the signal had aborted before the call, and sends nothing', async () => {
      const controller = new AbortController();
      controller.abort();
      const outcome = await call(tool({ method: 'POST', effect: 'write' }), {}, context({ signal: controller.signal }));
      expect(outcome.kind).toBe('failed');
      expect(server.requests).toEqual([]);
    });
  });

  describe('a request that may have had its effect', () => {
    it('times out while the server holds it: uncertain for a write', async () => {
      server.reply = { kind: 'hold' };
      const outcome = await callUntilTimeout(tool({ method: 'POST', effect: 'write' }), { note: 'n' });
      expect(outcome).toEqual({ kind: 'uncertain', error: expect.stringMatching(/^POST http:\/\/127\.0\.0\.1:\d+ timed out after 5 s .*may or may not have happened/) as unknown });
    });

    it('times out while the server holds it: uncertain for an idempotent tool', async () => {
      server.reply = { kind: 'hold' };
      const outcome = await callUntilTimeout(tool({ method: 'PUT', effect: 'idempotent', idempotency_header: 'Idempotency-Key' }));
      expect(outcome.kind).toBe('uncertain');
    });

    it('times out while the server holds it: failed for a read', async () => {
      server.reply = { kind: 'hold' };
      expect(await callUntilTimeout(tool())).toEqual({ kind: 'failed', error: expect.stringContaining('timed out') as unknown });
    });

    it('times out once the server has begun a response it never finishes: uncertain for a write', async () => {
      // Whether the client has the headers yet when the timeout fires is a race; either way the write is uncertain.
      server.reply = { kind: 'respond', body: 'partial', then: 'hold' };
      const outcome = await callUntilTimeout(tool({ method: 'POST', effect: 'write' }));
      expect(outcome).toEqual({ kind: 'uncertain', error: expect.stringContaining('timed out after 5 s') as unknown });
    });

    it('is uncertain for a write when the socket is destroyed mid-response', async () => {
      server.reply = { kind: 'respond', body: 'partial', then: 'destroy' };
      const outcome = await call(tool({ method: 'POST', effect: 'write' }), {});
      expect(outcome).toEqual({ kind: 'uncertain', error: expect.stringContaining('while the response was being read') as unknown });
    });

    it('fails for a read when the socket is destroyed mid-response', async () => {
      server.reply = { kind: 'respond', body: 'partial', then: 'destroy' };
      expect((await call(tool())).kind).toBe('failed');
    });

    it('is uncertain for a write when the connection closes after the request was sent', async () => {
      server.reply = { kind: 'hang_up' };
      const outcome = await call(tool({ method: 'POST', effect: 'write' }), {});
      expect(outcome).toEqual({ kind: 'uncertain', error: expect.stringContaining('lost the connection') as unknown });
    });

    it('is uncertain, never failed, when the signal aborts while a write is held open; the server saw it', async () => {
      server.reply = { kind: 'hold' };
      const controller = new AbortController();
      const outcome = call(tool({ method: 'POST', effect: 'write' }), { note: 'sent' }, context({ signal: controller.signal }));
      await server.whenRequests(1);
      controller.abort();
      expect(await outcome).toEqual({ kind: 'uncertain', error: expect.stringContaining('was stopped while the request was in flight') as unknown });
      expect(server.requests.map((r) => JSON.parse(r.body) as unknown)).toEqual([{ note: 'sent' }]);
    });
  });
});

describe('classifyFetchFailure', () => {
  const live = new AbortController().signal;
  const fetchError = (code: string): TypeError => new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code }) });
  /** An error as undici's own request rejects with it: the code on the error itself, as a failed connect gives it. */
  const connectError = (code: string): Error => Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code, syscall: 'connect' });

  it('reads the code of undici’s own errors on the error itself', () => {
    expect(classifyFetchFailure(connectError('ECONNREFUSED'), live, 5)).toEqual({ stage: 'not_sent', what: 'could not connect (connection refused)' });
    expect(classifyFetchFailure(new undiciErrors.ConnectTimeoutError(), live, 5).stage).toBe('not_sent');
    expect(classifyFetchFailure(new undiciErrors.InvalidArgumentError('invalid header'), live, 5).stage).toBe('not_sent');
    expect(classifyFetchFailure(new undiciErrors.SocketError('other side closed'), live, 5)).toEqual({ stage: 'maybe_sent', what: 'lost the connection (closed by the server)' });
    expect(classifyFetchFailure(new undiciErrors.HeadersTimeoutError(), live, 5).stage).toBe('maybe_sent');
    expect(classifyFetchFailure(new undiciErrors.BodyTimeoutError(), live, 5).stage).toBe('maybe_sent');
  });

  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'CERT_HAS_EXPIRED'])('calls %s not sent', (code) => {
    expect(classifyFetchFailure(fetchError(code), live, 5).stage).toBe('not_sent');
  });

  it.each(['UND_ERR_SOCKET', 'ECONNRESET', 'UND_ERR_CLOSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'SOMETHING_NEW'])('calls %s maybe sent', (code) => {
    expect(classifyFetchFailure(fetchError(code), live, 5).stage).toBe('maybe_sent');
  });

  it('calls an error without a code maybe sent, whatever its message says', () => {
    expect(classifyFetchFailure(new TypeError('connect ECONNREFUSED'), live, 5).stage).toBe('maybe_sent');
  });

  it('decides on the aborted signal first: a timeout and a stop are maybe sent, even with a not-sent code', () => {
    const timedOut = new AbortController();
    timedOut.abort(new DOMException('late', 'TimeoutError'));
    expect(classifyFetchFailure(fetchError('ECONNREFUSED'), timedOut.signal, 5)).toEqual({ stage: 'maybe_sent', what: 'timed out after 5 s' });
    const stopped = new AbortController();
    stopped.abort();
    expect(classifyFetchFailure(new DOMException('aborted', 'AbortError'), stopped.signal, 5)).toEqual({ stage: 'maybe_sent', what: 'was stopped' });
  });
});
