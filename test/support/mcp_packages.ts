import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The published MCP servers installed as dev dependencies. */
export type PublishedServer = '@modelcontextprotocol/server-memory' | '@modelcontextprotocol/server-filesystem';

/** The file a published server's package runs as its program (its `bin`). */
export function serverProgram(name: PublishedServer): string {
  const manifestPath = require.resolve(`${name}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: Record<string, string> };
  const bin = Object.values(manifest.bin)[0];
  if (bin === undefined) throw new Error(`${name} names no program`);
  return join(dirname(manifestPath), bin);
}
