import type { ToolsSettings } from './tools_settings.js';
import type { ToolDefinition } from '../llm/protocol.js';
import { createHttpTool } from './http_tool.js';
import type { MemoryStore } from '../turn_state/memory_store.js';
import type { McpServers } from './mcp/mcp_servers.js';
import { createMemoryTools } from './memory_tools.js';
import type { Tool } from './tool.js';
import { createUrlGuard } from './url_guard.js';
import { createWebFetchTool } from './web_fetch.js';

/** The long-lived services built-in tools need; the catalog itself is cheap and re-derived at will. */
export interface ToolServices {
  /** Open when `remember` or `recall` is enabled. */
  readonly memory: MemoryStore | undefined;
  /** Started when `tools.mcp` names servers. */
  readonly mcp?: McpServers;
}

/** Every tool the configuration offers, before permissions; names are unique (the schema checks it). */
export interface ToolCatalog {
  readonly tools: readonly Tool[];
  get(name: string): Tool | undefined;
}

/**
 * The catalog that the current `tools` configuration describes: the enabled built-ins
 * (web_fetch, remember, recall), then the HTTP tools in the order configured, then the MCP
 * servers' tools as each last listed them. Re-derive it whenever the configuration changes; permissions
 * are applied per requester by `permittedTools`.
 */
export function deriveCatalog(config: ToolsSettings, services: ToolServices): ToolCatalog {
  const builtins = new Set(config.builtin);
  const tools: Tool[] = [];
  if (builtins.has('web_fetch')) tools.push(createWebFetchTool(config.web_fetch, createUrlGuard(config.web_fetch.allow_private)));
  if (builtins.has('remember') || builtins.has('recall')) {
    if (services.memory === undefined) throw new Error('remember and recall are enabled but the memory store is not open');
    tools.push(...createMemoryTools(services.memory, config.memory).filter((tool) => builtins.has(tool.name as 'remember' | 'recall')));
  }
  tools.push(...config.http.map(createHttpTool));
  if (config.mcp.length > 0) {
    if (services.mcp === undefined) throw new Error('tools.mcp names servers but they were not started');
    tools.push(...services.mcp.tools());
  }
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return { tools, get: (name) => byName.get(name) };
}

/** What the model is told about each tool; the input schema goes out exactly as the tool declares it. */
export function toolDefinitions(tools: readonly Tool[]): ToolDefinition[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
}
