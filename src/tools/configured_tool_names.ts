import type { ToolsSettings } from './tools_settings.js';

/**
 * The names of the tools the `tools` section configures, known before any tool is built; an MCP
 * server's tools, listed only once it runs, are named by the pattern `<server>__*`.
 */
export function configuredToolNames(tools: ToolsSettings): string[] {
  return [...tools.builtin, ...tools.http.map((tool) => tool.name), ...tools.mcp.map((server) => `${server.name}__*`)];
}

/** Whether `name` is one of `configured` (a name from {@link configuredToolNames}): equal to it, or of an MCP server's pattern. */
export function isConfiguredToolName(name: string, configured: readonly string[]): boolean {
  return configured.some((known) => (known.endsWith('__*') ? name.startsWith(known.slice(0, -1)) && name.length > known.length - 1 : known === name));
}
