import { assertNever } from '../../core/assert_never.js';
import { backoffDelay, type BackoffSchedule } from '../../core/backoff.js';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import type { JsonObject } from '../../llm/protocol.js';
import type { Tool } from '../tool.js';
import { McpConnection, type ListedTool } from './mcp_connection.js';
import type { McpServerSettings } from './mcp_settings.js';
import { createMcpTool, type CallAttempt, type ToolServer } from './mcp_tool.js';

/** How long a server that failed waits before the next use starts it again: 1 s, doubling, at most a minute. */
export const RESTART_BACKOFF: BackoffSchedule = { initialMs: 1_000, factor: 2, capMs: 60_000, jitter: 'none' };

type ServerState =
  | { readonly kind: 'starting'; readonly started: Promise<void> }
  | { readonly kind: 'up'; readonly connection: McpConnection }
  | { readonly kind: 'down'; readonly why: string; readonly since: number }
  | { readonly kind: 'closed' };

/** What a server needs from the bot: where relative paths start, time, and a log. */
export interface ServerDeps {
  readonly cwd: string;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * One configured MCP server for the life of the bot: started at the bot's start, and started
 * again on next use after it failed to start or died, once {@link RESTART_BACKOFF} allows (each
 * failure in a row doubles the wait; an answered call resets it). Its tools are those it last
 * listed, so they stay in the catalog while it is down and answer with an error saying so.
 */
export class ManagedServer implements ToolServer {
  readonly name: string;
  readonly #settings: McpServerSettings;
  readonly #deps: ServerDeps;
  #state: ServerState = { kind: 'down', why: 'it has not been started yet', since: 0 };
  #failures = 0;
  #generation = 0;
  #tools: readonly Tool[] = [];

  constructor(settings: McpServerSettings, deps: ServerDeps) {
    this.name = settings.name;
    this.#settings = settings;
    this.#deps = { ...deps, logger: deps.logger.child({ component: 'mcp', server: settings.name }) };
  }

  /** The catalog's tools of this server, from its last listing. */
  get tools(): readonly Tool[] {
    return this.#tools;
  }

  /** Starts the server when it is down and may be started again; resolves once that attempt ended. */
  async revive(): Promise<void> {
    const state = this.#state;
    if (state.kind === 'down' && this.#due(state)) await this.#start();
  }

  /**
   * Calls one of the server's tools, starting the server first when it is down and its wait is
   * over (waiting for a start under way); says so without sending anything when it is not running.
   */
  async call(tool: string, input: JsonObject, meta: Record<string, string> | undefined, traceparent: string | undefined, signal: AbortSignal, timeoutMs: number): Promise<CallAttempt> {
    await this.revive();
    while (this.#state.kind === 'starting') await this.#state.started;
    const state = this.#state;
    switch (state.kind) {
      case 'up':
        break;
      case 'down':
        return { kind: 'not_running', why: state.why };
      case 'closed':
        return { kind: 'not_running', why: 'the bot is shutting down' };
      default:
        return assertNever(state);
    }
    if (signal.aborted) return { kind: 'not_sent' };
    try {
      const answer = await state.connection.call(tool, input, meta, traceparent, signal, timeoutMs);
      this.#failures = 0;
      return { kind: 'answered', answer };
    } catch (error) {
      return { kind: 'rejected', error };
    }
  }

  /** Stops the server for good; a start under way is closed as soon as it opens. */
  async close(): Promise<void> {
    const state = this.#state;
    this.#state = { kind: 'closed' };
    switch (state.kind) {
      case 'up':
        await state.connection.close();
        return;
      case 'starting':
        await state.started;
        return;
      case 'down':
      case 'closed':
        return;
      default:
        assertNever(state);
    }
  }

  #due(down: { readonly since: number }): boolean {
    return this.#failures === 0 || this.#deps.clock.monotonicNow() >= down.since + this.#retryWaitMs();
  }

  #retryWaitMs(): number {
    return backoffDelay(RESTART_BACKOFF, this.#failures - 1);
  }

  #start(): Promise<void> {
    const generation = ++this.#generation;
    const { logger } = this.#deps;
    const current = (): boolean => generation === this.#generation && this.#state.kind !== 'closed';
    const started = (async () => {
      const opening = await McpConnection.open(
        this.#settings,
        this.#deps.cwd,
        {
          onToolsChanged: (tools) => {
            if (!current()) return;
            this.#list(tools);
            logger.info({ tools: this.#tools.map((tool) => tool.name) }, `MCP server ${this.name} changed its tools`);
          },
          onLost: (why, stderr) => {
            if (!current()) return;
            this.#fail(`it stopped: ${why}`);
            logger.warn({ why, stderr, retryAfterSeconds: this.#retryWaitMs() / 1000 }, `MCP server ${this.name} stopped; it is started again on next use`);
          },
        },
        logger,
      );
      if (!current()) {
        if (opening.kind === 'open') await opening.connection.close();
        return;
      }
      switch (opening.kind) {
        case 'open':
          this.#state = { kind: 'up', connection: opening.connection };
          this.#list(opening.tools);
          logger.info({ tools: this.#tools.map((tool) => `${tool.name} (${tool.effect})`) }, `MCP server ${this.name} started`);
          return;
        case 'failed':
          this.#fail(`it could not start: ${opening.why}`);
          logger.error(
            { why: opening.why, stderr: opening.stderr, retryAfterSeconds: this.#retryWaitMs() / 1000 },
            `MCP server ${this.name} failed to start; its tools answer with an error until it is started again on next use`,
          );
          return;
        default:
          assertNever(opening);
      }
    })();
    this.#state = { kind: 'starting', started };
    return started;
  }

  #fail(why: string): void {
    this.#failures += 1;
    this.#state = { kind: 'down', why, since: this.#deps.clock.monotonicNow() };
  }

  #list(listed: readonly ListedTool[]): void {
    const policy = { effects: this.#settings.effects, approval: this.#settings.approval, timeoutSeconds: this.#settings.timeout_seconds, maxResultBytes: this.#settings.max_result_bytes };
    const tools: Tool[] = [];
    for (const entry of listed) {
      const tool = createMcpTool(this, entry, policy);
      if (tool === undefined)
        this.#deps.logger.warn(
          { tool: entry.name },
          `a tool of MCP server ${this.name} is not offered: "${this.name}__${entry.name}" is not a name a model can call (letters, digits, _ and - only, at most 64)`,
        );
      else tools.push(tool);
    }
    const unknown = Object.keys(this.#settings.effects).filter((name) => !listed.some((entry) => entry.name === name));
    if (unknown.length > 0) this.#deps.logger.warn({ effects: unknown }, `tools.mcp effects name tools that MCP server ${this.name} does not list`);
    this.#tools = tools;
  }
}
