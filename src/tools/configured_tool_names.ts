import type { ToolsSettings } from './tools_settings.js';

/** The names of the tools the `tools` section configures, known before any tool is built. */
export function configuredToolNames(tools: ToolsSettings): string[] {
  return [...tools.builtin, ...tools.http.map((tool) => tool.name)];
}
