import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * A module hook, on the loader's own thread: appends the URL of every module the program resolves
 * (each `import` and `import()`, the packages' entry points among them) to the file it is given.
 */
const HOOKS = `import { appendFileSync } from 'node:fs';
let log;
export function initialize(file) {
  log = file;
}
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}
`;

/** Registers the hook before the program's first module; the processes the program starts do not inherit it. */
const PRELOAD = (hooks: string, log: string): string => `import { register } from 'node:module';
register(${JSON.stringify(hooks)}, { data: ${JSON.stringify(log)} });
delete process.env.NODE_OPTIONS;
`;

/** What a program run under {@link recordLoadedPackages}' environment loaded. */
export interface PackageRecorder {
  /** The environment to run the program in: `PATH`, and `NODE_OPTIONS` importing the recorder. */
  readonly env: NodeJS.ProcessEnv;
  /** The names of the packages loaded so far (`discord.js`, `@modelcontextprotocol/sdk`), each once, sorted. */
  packages(): string[];
  /** The chunks of the built program loaded so far, each by its name without its hash (`bot_process`, `web_server`), once, sorted. */
  chunks(): string[];
}

/** The package a module's URL lies in, or `undefined` for a module of the program or of Node. */
function packageOf(url: string): string | undefined {
  const at = url.lastIndexOf('/node_modules/');
  if (at < 0) return undefined;
  const [scope, name] = url.slice(at + '/node_modules/'.length).split('/');
  return scope?.startsWith('@') === true ? `${scope}/${name ?? ''}` : scope;
}

/** The name of a chunk of the built program (`dist/chunks/web_server-7ITVJVAO.js` is `web_server`), or `undefined` for any other module. */
function chunkOf(url: string): string | undefined {
  return /\/dist\/chunks\/(\w+)-[A-Z0-9]+\.js$/.exec(url)?.[1];
}

/** What `name` makes of each module recorded in `log`, each once, sorted. */
function loaded(log: string, name: (url: string) => string | undefined): string[] {
  const urls = existsSync(log) ? readFileSync(log, 'utf8').split('\n') : [];
  return [...new Set(urls.flatMap((url) => name(url) ?? []))].sort();
}

/** Records, in `dir`, which packages and chunks of the program the programs started with the returned `env` load. */
export function recordLoadedPackages(dir: string): PackageRecorder {
  const log = join(dir, 'loaded-modules.txt');
  const hooks = join(dir, 'record-hooks.mjs');
  const preload = join(dir, 'record-preload.mjs');
  writeFileSync(hooks, HOOKS);
  writeFileSync(preload, PRELOAD(pathToFileURL(hooks).href, log));
  return {
    env: { PATH: process.env['PATH'], NODE_OPTIONS: `--import=${preload}` },
    packages: () => loaded(log, packageOf),
    chunks: () => loaded(log, chunkOf),
  };
}
