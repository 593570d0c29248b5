import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { interpolateEnvironment, type Environment, type FilledString } from './interpolate.js';
import { ConfigError, formatKeyPath, type ConfigProblem, type KeyPath } from './problems.js';
import type { z } from 'zod';
import { validateConfigTree } from './validate.js';
import { parseYamlSource } from './yaml_source.js';

/** Where the configuration came from: a file (and which rule chose it), or defaults alone. */
export type ConfigSource = { readonly kind: 'file'; readonly path: string; readonly chosenBy: '--config' | 'HOLDFAST_CONFIG' | './config.yml' } | { readonly kind: 'defaults' };

export interface LoadConfigOptions {
  /** The `--config` argument, if given. */
  readonly configPath?: string | undefined;
  readonly env: Environment;
  readonly cwd: string;
  /**
   * The top-level sections the caller uses; absent, all. A `${VAR}` elsewhere may be unset (it
   * stands as the empty string, and is listed in `excused`), so that an operator command runs
   * without the Discord token or an API key; where the empty string breaks the schema, the
   * missing variable is named as usual.
   */
  readonly sections?: ReadonlySet<string>;
}

/** A configuration as `schema` validated it, and where it came from. */
export interface LoadedConfig<T> {
  readonly config: T;
  readonly source: ConfigSource;
  /** The strings `${VAR}` references filled in, and with which values: what must be kept secret is among them. */
  readonly filled: readonly FilledString[];
  /**
   * The folder the configuration's relative paths (`turn_state.db_path`, an MCP server's `cwd`) are
   * resolved against: the configuration file's, so that a service manager or a container starting
   * the program elsewhere finds the same files; without a file, the current folder.
   */
  readonly baseDir: string;
  /** The unset variables that `sections` let pass, each with its key path. */
  readonly excused: readonly ConfigProblem[];
}

/** `--config PATH`, else `HOLDFAST_CONFIG`, else `./config.yml` if it exists, else defaults. */
export function resolveConfigSource(options: LoadConfigOptions): ConfigSource {
  if (options.configPath !== undefined) return { kind: 'file', path: resolve(options.cwd, options.configPath), chosenBy: '--config' };
  const fromEnv = options.env['HOLDFAST_CONFIG'];
  if (fromEnv !== undefined && fromEnv !== '') return { kind: 'file', path: resolve(options.cwd, fromEnv), chosenBy: 'HOLDFAST_CONFIG' };
  const local = resolve(options.cwd, 'config.yml');
  return existsSync(local) ? { kind: 'file', path: local, chosenBy: './config.yml' } : { kind: 'defaults' };
}

/**
 * Finds, reads, interpolates and validates a configuration against `schema`.
 * @throws {ConfigError} listing every problem found, each with its key path.
 */
export function loadConfigWith<S extends z.ZodType>(schema: S, options: LoadConfigOptions): LoadedConfig<z.output<S>> {
  const source = resolveConfigSource(options);
  if (source.kind === 'defaults') return { ...parseWith(schema, '', '(defaults)', options), source, baseDir: options.cwd };
  let text: string;
  try {
    text = readFileSync(source.path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError([{ kind: 'unreadable_file', file: source.path, message: `cannot read the configuration file (named by ${source.chosenBy}): ${reason}` }]);
  }
  return { ...parseWith(schema, text, source.path, options), source, baseDir: dirname(source.path) };
}

/**
 * Parses configuration YAML held in memory against `schema`; `file` names it in problems.
 * @throws {ConfigError} listing every problem found.
 */
export function parseConfigWith<S extends z.ZodType>(schema: S, text: string, file: string, env: Environment): z.output<S> {
  return parseWith(schema, text, file, { env }).config;
}

function parseWith<S extends z.ZodType>(schema: S, text: string, file: string, options: Pick<LoadConfigOptions, 'env' | 'sections'>): Omit<LoadedConfig<z.output<S>>, 'source' | 'baseDir'> {
  const parsed = parseYamlSource(text, file);
  if ('problems' in parsed) throw new ConfigError(parsed.problems);
  const { source } = parsed;
  const tree = source.tree;
  if (tree !== undefined && (typeof tree !== 'object' || tree === null || Array.isArray(tree))) {
    throw new ConfigError([source.locate({ kind: 'not_a_mapping', path: [], message: 'expected a mapping of section names to settings' })]);
  }
  const { sections } = options;
  const needed = sections === undefined ? undefined : (path: KeyPath): boolean => sections.has(String(path[0]));
  const interpolated = interpolateEnvironment(tree, options.env, needed);
  const validated = validateConfigTree(schema, interpolated.value, interpolated.filled);
  if (validated.ok && interpolated.problems.length === 0) return { config: validated.config, filled: interpolated.filled, excused: interpolated.excused };
  // An excused variable whose empty string breaks the schema, there or in what holds it, is missing after all.
  const invalid = validated.ok ? [] : validated.problems;
  const breaks = (problem: ConfigProblem): boolean => invalid.some((other) => isPrefix(pathOf(other), pathOf(problem)));
  const missing: ConfigProblem[] = [...interpolated.problems, ...interpolated.excused.filter(breaks)];
  // A value whose reference failed is reported once, for the reference, not again for its type.
  const referenced = new Set(missing.map((problem) => formatKeyPath(pathOf(problem))));
  const located = [...missing, ...invalid.filter((problem) => !referenced.has(formatKeyPath(pathOf(problem))))].map((problem) => source.locate(problem));
  throw new ConfigError(located.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0)));
}

function pathOf(problem: ConfigProblem): KeyPath {
  return problem.path ?? [];
}

function isPrefix(prefix: KeyPath, path: KeyPath): boolean {
  return prefix.length <= path.length && prefix.every((segment, index) => segment === path[index]);
}
