import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** A module of the SDK, as the path a server's source can `require`. */
const sdk = (path: string): string => JSON.stringify(require.resolve(`@modelcontextprotocol/sdk/${path}`));

/**
 * The source of a stdio MCP server in CommonJS, built with the SDK's own server classes: it
 * offers `echo` (read-only), which answers with the server's pid, and `crash`, which writes
 * `stderr` and exits with status 7 mid-call. When `needs` is given, the server starts only if
 * that file exists; otherwise it writes `stderr` and exits with status 3 at once.
 */
export function stdioServerSource(stderr: string, needs?: string): string {
  return `
const { existsSync } = require('node:fs');
const { Server } = require(${sdk('server/index.js')});
const { StdioServerTransport } = require(${sdk('server/stdio.js')});
const { CallToolRequestSchema, ListToolsRequestSchema } = require(${sdk('types.js')});
const fail = (status) => process.stderr.write(${JSON.stringify(`${stderr}\n`)}, () => process.exit(status));
if (${needs === undefined ? 'false' : `!existsSync(${JSON.stringify(needs)})`}) {
  fail(3);
} else {
  const server = new Server({ name: 'scripted', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: 'echo', description: 'Says which process answered.', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
      { name: 'crash', description: 'Dies mid-call.', inputSchema: { type: 'object' } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    if (request.params.name === 'crash') return new Promise(() => fail(7));
    return { content: [{ type: 'text', text: 'echo from ' + process.pid }] };
  });
  void server.connect(new StdioServerTransport());
}
`;
}

/**
 * The source of a stdio MCP server in CommonJS that offers `show_meta` (idempotent), which
 * answers with the `_meta` of its call as JSON.
 */
export function metaServerSource(): string {
  return `
const { Server } = require(${sdk('server/index.js')});
const { StdioServerTransport } = require(${sdk('server/stdio.js')});
const { CallToolRequestSchema, ListToolsRequestSchema } = require(${sdk('types.js')});
const server = new Server({ name: 'meta', version: '1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{ name: 'show_meta', description: 'Says what _meta its call carried.', inputSchema: { type: 'object' }, annotations: { idempotentHint: true } }],
}));
server.setRequestHandler(CallToolRequestSchema, (request) => ({ content: [{ type: 'text', text: JSON.stringify(request.params._meta ?? null) }] }));
void server.connect(new StdioServerTransport());
`;
}
