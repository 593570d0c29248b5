import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LoggingMessageNotificationSchema, McpError, ResultSchema, ToolListChangedNotificationSchema, type Tool as ListedTool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../core/logger.js';
import type { JsonObject } from '../../llm/protocol.js';
import { brokenStreamFetch } from './broken_stream_fetch.js';
import { traceContextFetch, withCallTraceContext } from './call_trace_context.js';
import type { McpServerSettings } from './mcp_settings.js';
import { StderrTail } from './stderr_tail.js';

export type { ListedTool };

/** The most pages of `tools/list` read in one listing: a server that pages on past that is cut off there. */
const MAX_LIST_PAGES = 100;

/** What a connection tells its owner after it opened. */
export interface ConnectionEvents {
  /** The server listed a new set of tools after saying its list changed. */
  onToolsChanged(tools: readonly ListedTool[]): void;
  /** The connection closed without being asked to: the process exited, or the HTTP stream broke. */
  onLost(why: string, stderr: string | undefined): void;
}

/** How opening a connection went; a failure carries what the server wrote to stderr before it. */
export type Opening =
  { readonly kind: 'open'; readonly connection: McpConnection; readonly tools: readonly ListedTool[] } | { readonly kind: 'failed'; readonly why: string; readonly stderr: string | undefined };

type ConnectionState = 'opening' | 'open' | 'closing';

/**
 * One live session with one MCP server, through the official SDK's client: a child process over
 * stdio, or a Streamable HTTP session. It lists the server's tools when it opens and again
 * whenever the server sends `notifications/tools/list_changed`, and reports once if it is lost.
 */
export class McpConnection {
  readonly #client = new Client({ name: 'holdfast', version: '1' });
  readonly #stderr = new StderrTail();
  readonly #transport: Transport;
  readonly #timeoutMs: number;
  readonly #events: ConnectionEvents;
  readonly #logger: Logger;
  #state: ConnectionState = 'opening';
  #lostWhy: string;
  #listing: Promise<unknown> = Promise.resolve();

  private constructor(settings: McpServerSettings, cwd: string, events: ConnectionEvents, logger: Logger) {
    this.#timeoutMs = settings.timeout_seconds * 1000;
    this.#events = events;
    this.#logger = logger;
    if (settings.command !== undefined) {
      const stdio = new StdioClientTransport({ command: settings.command, args: settings.args ?? [], env: settings.env ?? {}, cwd: resolve(cwd, settings.cwd ?? '.'), stderr: 'pipe' });
      this.#stderr.follow(stdio.stderr);
      this.#transport = stdio;
      this.#lostWhy = 'its process exited';
    } else {
      const fetch = traceContextFetch(brokenStreamFetch((error) => this.#breakOff(error)));
      this.#transport = new StreamableHTTPClientTransport(new URL(settings.url ?? ''), { requestInit: { headers: settings.headers ?? {} }, fetch });
      this.#lostWhy = 'the connection closed';
    }
    this.#client.onclose = () => this.#closed();
    this.#client.onerror = (error) => this.#logger.debug({ err: error }, 'MCP transport error');
    this.#client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.#relist());
    this.#client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => this.#logger.debug({ level: params.level, data: params.data }, 'MCP server log message'));
  }

  /** Starts the server (or opens the HTTP session), initialises MCP and lists its tools, within the server's timeout. */
  static async open(settings: McpServerSettings, cwd: string, events: ConnectionEvents, logger: Logger): Promise<Opening> {
    const connection = new McpConnection(settings, cwd, events, logger);
    try {
      await connection.#client.connect(connection.#transport, { timeout: connection.#timeoutMs });
      const tools = await connection.#list();
      connection.#state = 'open';
      return { kind: 'open', connection, tools };
    } catch (error) {
      await connection.close();
      return { kind: 'failed', why: error instanceof Error ? error.message : String(error), stderr: connection.#stderr.text() };
    }
  }

  /**
   * Sends `tools/call`; resolves with the server's answer as it came, or rejects as the SDK does:
   * `signal` and `timeoutMs` both cancel the call, sending MCP's `notifications/cancelled`. A
   * `traceparent` joins `meta` in the request's `_meta` and, over HTTP, is also the `traceparent`
   * header of the request that carries it. A failure of the transport itself (not an MCP error)
   * ends the connection after the call has its own error, so that the server is started again on
   * next use.
   */
  async call(name: string, input: JsonObject, meta: Record<string, string> | undefined, traceparent: string | undefined, signal: AbortSignal, timeoutMs: number): Promise<unknown> {
    const callMeta = traceparent === undefined ? meta : { ...meta, traceparent };
    const params = { name, arguments: input, ...(callMeta === undefined ? {} : { _meta: callMeta }) };
    try {
      return await withCallTraceContext(traceparent, () => this.#client.request({ method: 'tools/call', params }, ResultSchema, { signal, timeout: timeoutMs }));
    } catch (error) {
      if (!(error instanceof McpError) && !signal.aborted) this.#breakOff(error);
      throw error;
    }
  }

  /** Ends the session (a stdio server's process is stopped); nothing is reported as lost. */
  async close(): Promise<void> {
    this.#state = 'closing';
    await this.#client.close();
  }

  async #list(): Promise<ListedTool[]> {
    const listing = this.#listing.then(async () => {
      const tools: ListedTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
        const result = await this.#client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: this.#timeoutMs });
        tools.push(...result.tools);
        cursor = result.nextCursor;
        if (cursor === undefined) break;
      }
      return tools;
    });
    this.#listing = listing.catch(() => undefined);
    return listing;
  }

  async #relist(): Promise<void> {
    try {
      const tools = await this.#list();
      if (this.#state === 'open') this.#events.onToolsChanged(tools);
    } catch (error) {
      if (this.#state === 'open') this.#logger.warn({ err: error }, 'the MCP server said its tools changed, but listing them failed: the last list stays');
    }
  }

  /** The transport failed (an HTTP stream broke mid-answer, a request could not be sent): the session is closed, settling every call still waiting on it. */
  #breakOff(error: unknown): void {
    if (this.#state !== 'open') return;
    this.#lostWhy = `the connection broke (${error instanceof Error ? error.message : String(error)})`;
    void this.#client.close();
  }

  #closed(): void {
    if (this.#state !== 'open') return;
    this.#state = 'closing';
    this.#events.onLost(this.#lostWhy, this.#stderr.text());
  }
}
