import type { Tool } from '../tool.js';
import type { ManagedServer, ServerDeps } from './managed_server.js';
import type { McpServerSettings } from './mcp_settings.js';

/**
 * The MCP servers of `tools.mcp`, one long-lived service for the whole process: started with the
 * bot, closed when it stops. The catalog takes their tools from here as last listed.
 */
export class McpServers {
  readonly #servers: readonly ManagedServer[];

  private constructor(servers: readonly ManagedServer[]) {
    this.#servers = servers;
  }

  /**
   * Starts every server at once and waits until each has listed its tools or failed (within its
   * `timeout_seconds`); one that fails is logged and started again later, and the bot runs on.
   * The MCP SDK is loaded only when there is a server to start.
   */
  static async start(settings: readonly McpServerSettings[], deps: ServerDeps): Promise<McpServers> {
    if (settings.length === 0) return new McpServers([]);
    const { ManagedServer } = await import('./managed_server.js');
    const servers = settings.map((entry) => new ManagedServer(entry, deps));
    await Promise.all(servers.map((server) => server.revive()));
    return new McpServers(servers);
  }

  /**
   * Every server's tools, in configured order. A server whose tools are not known because it has
   * not started yet is started again in the background when its wait is over, so that its tools
   * are offered from the next message on.
   */
  tools(): Tool[] {
    for (const server of this.#servers.filter((entry) => entry.tools.length === 0)) void server.revive();
    return this.#servers.flatMap((server) => server.tools);
  }

  /** Stops every server; stdio servers' processes end. */
  async close(): Promise<void> {
    await Promise.all(this.#servers.map((server) => server.close()));
  }
}
