import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * `npm run build`: the program in dist/, as `holdfast` and the tests run it. esbuild bundles
 * src/main.ts and the configuration's libraries (zod, yaml and the other plain-JavaScript
 * dependencies) into a few files, one chunk per part the program loads when it decides to run it
 * (an operator command, the bot, the Discord transport …): Node then reads tens of files at a
 * start instead of hundreds, which is most of what `--version` and `doctor` cost. The packages a
 * part loads only when it runs, and those with native code or files of their own, stay in
 * node_modules. The compiler checks the types (`npm run typecheck`); this only emits.
 *
 * Only the files whose bytes changed are written, and then the files of an earlier build that
 * this one no longer makes are removed: a build with nothing changed touches nothing, so a program
 * already running from dist/ is never left without the chunk it is about to load.
 */
const EXTERNAL = [
  'better-sqlite3',
  'pg',
  'discord.js',
  '@modelcontextprotocol/sdk',
  'prom-client',
  'pino',
  'pino-pretty',
  '@opentelemetry/api',
  '@opentelemetry/exporter-trace-otlp-proto',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace-base',
  'undici',
];

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
const unknown = EXTERNAL.filter((name) => !(name in manifest.dependencies));
if (unknown.length > 0) throw new Error(`scripts/build.ts keeps out packages that are not dependencies: ${unknown.join(', ')}`);

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const { outputFiles } = await build({
  entryPoints: [fileURLToPath(new URL('../src/main.ts', import.meta.url))],
  outdir: dist,
  write: false,
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  sourcemap: true,
  external: EXTERNAL,
  // The bundled CommonJS packages call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as holdfastRequire } from 'node:module';\nconst require = holdfastRequire(import.meta.url);" },
  logLevel: 'warning',
});
for (const file of outputFiles) {
  if (existsSync(file.path) && readFileSync(file.path).equals(file.contents)) continue;
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, file.contents);
}
const made = new Set(outputFiles.map((file) => relative(dist, file.path)));
for (const name of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  const path = join(name.parentPath, name.name);
  if (name.isFile() && !made.has(relative(dist, path))) rmSync(path);
}
