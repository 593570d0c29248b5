import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

/**
 * `npm run build`: the program in dist/, as `holdfast` and the tests run it. esbuild bundles
 * src/main.ts and the configuration's libraries (zod, yaml and the other plain-JavaScript
 * dependencies) into a few files, one chunk per part the program loads when it decides to run it
 * (an operator command, the bot, the Discord transport …): Node then reads tens of files at a
 * start instead of hundreds, which is most of what `--version` and `doctor` cost. The packages a
 * part loads only when it runs, and those with native code or files of their own, stay in
 * node_modules. The compiler checks the types (`npm run typecheck`); this only emits.
 *
 * Of zod's error messages in 64 languages only the English ones, which zod uses by itself, are
 * bundled ({@link englishZod}): the others made the configuration's chunk twice as large, and
 * compiling it left the bot holding 4–5 MiB more at rest.
 *
 * Every chunk is ASCII: esbuild escapes the other characters of strings and identifiers but leaves
 * the comments it keeps as they are, and one dash in a comment would make V8 hold the whole
 * chunk's source two bytes a character for as long as the program runs. Those characters are
 * written as their `\u` escape, which in a comment changes nothing.
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

/** Resolves zod's index of its locales (`z.locales`, `z.core.locales`) to one that has English only: Holdfast never picks a language. */
const englishZod: Plugin = {
  name: 'english-zod',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, ({ importer }) => (/[/\\]node_modules[/\\]zod[/\\]/.test(importer) ? { path: importer, namespace: 'english-zod' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'english-zod' }, ({ path }) => ({ contents: "export { default as en } from '../locales/en.js';", resolveDir: dirname(path) }));
  },
};

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
  plugins: [englishZod],
  // The bundled CommonJS packages call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as holdfastRequire } from 'node:module';\nconst require = holdfastRequire(import.meta.url);" },
  logLevel: 'warning',
});
/** `text` with every character beyond ASCII written as its `\u` escape. */
const asciiOnly = (text: string): string => text.replace(/[\u0080-\u{10ffff}]/gu, (character) => `\\u{${character.codePointAt(0)?.toString(16)}}`);

for (const file of outputFiles) {
  const contents = file.path.endsWith('.js') ? Buffer.from(asciiOnly(file.text)) : file.contents;
  if (existsSync(file.path) && readFileSync(file.path).equals(contents)) continue;
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, contents);
}
const made = new Set(outputFiles.map((file) => relative(dist, file.path)));
for (const name of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  const path = join(name.parentPath, name.name);
  if (name.isFile() && !made.has(relative(dist, path))) rmSync(path);
}
