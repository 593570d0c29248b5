import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type IsomorphicHeaders, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { Conditions } from './conditions.js';

/** A tool the target offers: its name and the annotations it declares, if any. */
export interface TargetTool {
  readonly name: string;
  readonly annotations?: ToolAnnotations;
}

/** Every combination of the hints that decide an effect class, and one tool with none. */
export const ANNOTATED_TOOLS: readonly TargetTool[] = [
  { name: 'bare' },
  { name: 'empty_hints', annotations: {} },
  { name: 'reader', annotations: { readOnlyHint: true } },
  { name: 'repeater', annotations: { idempotentHint: true } },
  { name: 'steady_reader', annotations: { readOnlyHint: true, idempotentHint: true } },
  { name: 'eraser', annotations: { destructiveHint: true } },
  { name: 'steady_eraser', annotations: { destructiveHint: true, idempotentHint: true } },
  { name: 'said_no', annotations: { readOnlyHint: false, idempotentHint: false } },
  { name: 'reader_said_destructive', annotations: { readOnlyHint: true, destructiveHint: true } },
];

/** What the target saw of one `tools/call`. */
export interface TargetCall {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly meta: Record<string, unknown> | undefined;
  /** The headers of the HTTP request that carried the call. */
  readonly headers: IsomorphicHeaders;
}

/** What the target saw of one HTTP request, whatever it carried. */
export interface TargetHttpRequest {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
}

/** A test's answer to one call: a result, or a call held until the test releases it (or the client cancels it). */
export type TargetAnswer = { readonly result: CallToolResult } | { readonly hold: Promise<void> };

interface Session {
  readonly server: Server;
  readonly transport: StreamableHTTPServerTransport;
}

/**
 * A real MCP server over Streamable HTTP on 127.0.0.1, built with the SDK's own server classes:
 * it offers {@link ANNOTATED_TOOLS} (and any added later, announced with `list_changed`), records
 * every HTTP request, every call with its `_meta` and its request's headers, and every
 * cancellation the client sends, and answers with the next scripted answer (a text naming the
 * tool when none is scripted). It can die mid-call and come back on the same port.
 */
export class McpTarget {
  readonly calls: TargetCall[] = [];
  /** Every HTTP request that arrived, in order: session set-up, listings, calls, notifications and streams. */
  readonly httpRequests: TargetHttpRequest[] = [];
  /** The tools whose calls the client cancelled with `notifications/cancelled`, in order. */
  readonly cancelled: string[] = [];
  /** Called as each call arrives, before it is answered. */
  onCall: ((call: TargetCall) => void) | undefined;
  readonly #tools: TargetTool[] = [...ANNOTATED_TOOLS];
  readonly #answers: TargetAnswer[] = [];
  readonly #sessions = new Map<string, Session>();
  readonly #conditions = new Conditions();
  readonly #http: HttpServer;
  #port = 0;
  #sessionCount = 0;
  #notificationStreams = 0;

  private constructor() {
    this.#http = createServer((req, res) => void this.#handle(req, res));
  }

  static async start(): Promise<McpTarget> {
    const target = new McpTarget();
    await target.#listen();
    return target;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}/mcp`;
  }

  answer(...answers: TargetAnswer[]): this {
    this.#answers.push(...answers);
    return this;
  }

  /** Resolves once `count` calls have arrived. */
  whenCalls(count: number): Promise<void> {
    return this.#conditions.when(() => this.calls.length >= count);
  }

  /** Resolves once `count` cancellations have arrived. */
  whenCancelled(count: number): Promise<void> {
    return this.#conditions.when(() => this.cancelled.length >= count);
  }

  /** Resolves once clients have opened `count` streams for the server's notifications (one per session), so that a `list_changed` reaches them. */
  whenListening(count: number): Promise<void> {
    return this.#conditions.when(() => this.#notificationStreams >= count);
  }

  /** Offers one more tool and tells every connected client that the list changed. */
  async addTool(tool: TargetTool): Promise<void> {
    this.#tools.push(tool);
    await Promise.all([...this.#sessions.values()].map((session) => session.server.sendToolListChanged()));
  }

  /** Stops at once: every connection is cut, calls in flight included, and nothing listens on the port. */
  async die(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#http.close(() => resolve()));
    this.#http.closeAllConnections();
    await closed;
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((session) => session.server.close()));
  }

  /** Listens again on the same port after {@link die}. */
  async revive(): Promise<void> {
    await this.#listen(this.#port);
  }

  async close(): Promise<void> {
    if (!this.#http.listening) return;
    await this.die();
  }

  async #listen(port = 0): Promise<void> {
    await new Promise<void>((resolve) => this.#http.listen(port, '127.0.0.1', resolve));
    this.#port = (this.#http.address() as AddressInfo).port;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.httpRequests.push({ method: req.method ?? '', headers: req.headers });
    const id = req.headers['mcp-session-id'];
    const session = typeof id === 'string' ? this.#sessions.get(id) : await this.#newSession();
    if (session === undefined) {
      res.writeHead(404).end();
      return;
    }
    if (req.method === 'GET') this.#countStreamOnceOpen(res);
    await session.transport.handleRequest(req, res);
  }

  /** The SDK registers a session's notification stream before it writes the stream's head: once the head is out, notifications reach it. */
  #countStreamOnceOpen(res: ServerResponse): void {
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    res.writeHead = (...args: unknown[]) => {
      const written = writeHead(...args);
      if (res.statusCode === 200) {
        this.#notificationStreams += 1;
        this.#conditions.changed();
      }
      return written;
    };
  }

  async #newSession(): Promise<Session> {
    const server = new Server({ name: 'holdfast-test-target', version: '1' }, { capabilities: { tools: { listChanged: true }, logging: {} } });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => `session-${++this.#sessionCount}`,
      onsessioninitialized: (sessionId) => void this.#sessions.set(sessionId, { server, transport }),
    });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: this.#tools.map((tool) => ({
        name: tool.name,
        description: `The ${tool.name} tool.`,
        inputSchema: { type: 'object' as const, properties: { text: { type: 'string' } } },
        ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const call = { tool: request.params.name, arguments: request.params.arguments ?? {}, meta: request.params._meta, headers: extra.requestInfo?.headers ?? {} };
      this.calls.push(call);
      this.onCall?.(call);
      this.#conditions.changed();
      const answer = this.#answers.shift() ?? { result: { content: [{ type: 'text', text: `${call.tool} done` }] } };
      if ('result' in answer) return answer.result;
      // A held call says it is working, as a long call would: its answer's event stream is open from here on.
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: `${call.tool} is working` } });
      const cancelled = new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve(), { once: true }));
      await Promise.race([answer.hold, cancelled]);
      // A cancellation from the client carries its reason as a string; a closed session aborts with none.
      if (typeof extra.signal.reason === 'string') {
        this.cancelled.push(call.tool);
        this.#conditions.changed();
      }
      return { content: [{ type: 'text', text: `${call.tool} released` }] };
    });
    await server.connect(transport);
    return { server, transport };
  }
}
