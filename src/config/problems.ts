import { marked } from '../core/marked.js';

/** The kinds of thing that can be wrong with a configuration. */
export const CONFIG_PROBLEM_KINDS = [
  'unreadable_file',
  'yaml_syntax',
  'yaml_alias',
  'not_a_mapping',
  'missing_env',
  'bad_reference',
  'unknown_key',
  'removed_key',
  'llmcord_key',
  'invalid_value',
] as const;
export type ConfigProblemKind = (typeof CONFIG_PROBLEM_KINDS)[number];

/** A key path into the configuration: `['tools', 'http', 0, 'name']`. */
export type KeyPath = readonly (string | number)[];

/** One thing wrong with a configuration, located as exactly as it can be. */
export interface ConfigProblem {
  readonly kind: ConfigProblemKind;
  /** The file it is in; absent when the configuration came from defaults alone. */
  readonly file?: string;
  /** Where in the configuration; absent for problems with the file as a whole. */
  readonly path?: KeyPath;
  /** 1-based line and column in the file, when known. */
  readonly line?: number;
  readonly column?: number;
  /** What is wrong, and what was expected. */
  readonly message: string;
}

const CONFIG_ERROR = marked<ConfigError>('ConfigError');

/** The configuration could not be loaded; `problems` lists every reason, one each. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(readonly problems: readonly ConfigProblem[]) {
    super(problems.map(formatConfigProblem).join('\n'));
    CONFIG_ERROR.mark(this);
  }
}

/** Recognises a {@link ConfigError}, even one thrown by another copy of this module. */
export function isConfigError(error: unknown): error is ConfigError {
  return CONFIG_ERROR.is(error);
}

/** `tools.http[0].name`; the empty path is `(top level)`. */
export function formatKeyPath(path: KeyPath): string {
  if (path.length === 0) return '(top level)';
  return path.map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : index === 0 ? segment : `.${segment}`)).join('');
}

/** One line, as a compiler would print it: `file:line:column: key.path: message`. */
export function formatConfigProblem(problem: ConfigProblem): string {
  const where = [problem.file, problem.line, problem.column].filter((part) => part !== undefined).join(':');
  const parts = [where, problem.path === undefined ? undefined : formatKeyPath(problem.path), problem.message];
  return parts.filter((part) => part !== undefined && part !== '').join(': ');
}
