import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { Conditions } from '../conditions.js';

/**
 * What the fake model server does with one request. Protocol helpers (openai_chat.ts,
 * openai_responses.ts, anthropic.ts beside this file) build these from text and tool calls.
 */
export type FakeStep =
  /**
   * A 2xx (or any) response whose body is written chunk by chunk, then ends, stalls or hangs up.
   * A promise among the chunks holds the rest back until the test resolves it.
   */
  | {
      readonly kind: 'stream';
      readonly chunks: readonly (string | Promise<void>)[];
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
      /**
       * `end` (default) finishes the response; `stall` keeps it open sending nothing; `hang_up`
       * destroys the socket; `{ repeat }` writes that chunk again and again until the client hangs up.
       */
      readonly then?: 'end' | 'stall' | 'hang_up' | { readonly repeat: string };
    }
  /** A whole response at once, as errors arrive: a status, headers and a JSON (or text) body. */
  | { readonly kind: 'reply'; readonly status: number; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> }
  /** A whole response whose JSON body is made from the request, as a server that echoes what it was sent. */
  | { readonly kind: 'echo'; readonly status: number; readonly body: (request: RecordedRequest) => unknown }
  /** Accepts the request and never answers: no status, no headers. */
  | { readonly kind: 'no_response' }
  /** Destroys the connection before any response. */
  | { readonly kind: 'hang_up' };

/** A request as the fake server saw it. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
  /** Set when the client closed the connection before the server finished its response. */
  closedByClient: boolean;
  /** When the request had arrived whole, on `performance.now()`'s clock (ms). */
  readonly arrivedAt: number;
  /** When the first byte of the response body (or a whole response) was written; unset until then. */
  firstByteAt?: number;
  /** When the response ended; unset while it runs, and for one that never ends. */
  finishedAt?: number;
}

/** Answers a request no scripted step is left for, from what it asks. */
export type Responder = (request: RecordedRequest) => FakeStep;

/** A real HTTP server on 127.0.0.1 that answers each request with the next scripted step. */
export class FakeLLMServer {
  readonly requests: RecordedRequest[] = [];
  /** The TCP connections clients opened to it. */
  connections = 0;
  readonly #server: Server;
  readonly #steps: FakeStep[] = [];
  readonly #conditions = new Conditions();
  #responder: Responder | undefined;
  #port = 0;

  private constructor() {
    this.#server = createServer((req, res) => void this.#handle(req, res));
    this.#server.on('connection', () => this.connections++);
  }

  /** Starts a server on a random free port. */
  static async start(): Promise<FakeLLMServer> {
    const fake = new FakeLLMServer();
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    fake.#port = (fake.#server.address() as AddressInfo).port;
    return fake;
  }

  /** The API root to configure as `llm.base_url`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.#port}/v1`;
  }

  /** Queues steps, one per request, in order. A request with no step left gets a 599 that names the mistake. */
  enqueue(...steps: FakeStep[]): this {
    this.#steps.push(...steps);
    return this;
  }

  /**
   * Answers every request that finds no scripted step with `responder`'s step for it, in place of
   * the 599 that names the mistake: a model that answers by itself.
   */
  respondWith(responder: Responder): this {
    this.#responder = responder;
    return this;
  }

  /** Forgets the steps not yet used and the requests seen, for a test that runs several scenarios on one server. */
  reset(): void {
    this.#steps.length = 0;
    this.requests.length = 0;
  }

  /** Resolves once `count` requests have arrived. */
  whenRequests(count: number): Promise<void> {
    return this.#conditions.when(() => this.requests.length >= count);
  }

  /** Resolves once the client has closed `count` connections before their responses finished. */
  whenClientClosed(count = 1): Promise<void> {
    return this.#conditions.when(() => this.requests.filter((r) => r.closedByClient).length >= count);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: parseJson(raw), closedByClient: false, arrivedAt: performance.now() };
    res.on('finish', () => {
      recorded.firstByteAt ??= performance.now();
      recorded.finishedAt = performance.now();
    });
    res.on('close', () => {
      if (!res.writableFinished) {
        recorded.closedByClient = true;
        this.#conditions.changed();
      }
    });
    this.requests.push(recorded);
    this.#conditions.changed();
    const step = this.#steps.shift() ?? this.#responder?.(recorded) ?? { kind: 'reply', status: 599, body: { error: { message: `fake-llm: no scripted step for request ${this.requests.length}` } } };
    switch (step.kind) {
      case 'reply': {
        const body = typeof step.body === 'string' ? step.body : step.body === undefined ? '' : JSON.stringify(step.body);
        res.writeHead(step.status, { 'content-type': typeof step.body === 'string' ? 'text/plain' : 'application/json', ...step.headers });
        res.end(body);
        return;
      }
      case 'echo':
        res.writeHead(step.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(step.body(recorded)));
        return;
      case 'stream': {
        res.writeHead(step.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...step.headers });
        res.flushHeaders();
        for (const chunk of step.chunks) {
          if (typeof chunk !== 'string') await chunk;
          if (res.destroyed) return;
          if (typeof chunk !== 'string') continue;
          recorded.firstByteAt ??= performance.now();
          res.write(chunk);
        }
        if (typeof step.then === 'object') {
          while (!res.destroyed) {
            res.write(step.then.repeat);
            await nextMacrotask();
          }
        } else if (step.then === 'hang_up') res.socket?.destroy();
        else if (step.then !== 'stall') res.end();
        return;
      }
      case 'no_response':
        return;
      case 'hang_up':
        req.socket.destroy();
        return;
      default: {
        const unreachable: never = step;
        throw new Error(`unknown step ${JSON.stringify(unreachable)}`);
      }
    }
  }
}

/** Server-sent event framing: `event:` line when named, one `data:` line, blank line. */
export function sse(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${payload}\n\n`;
}

/** A port on 127.0.0.1 where nothing listens, for connection-refused cases. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
