import type { ConfigProblem, KeyPath } from './problems.js';

/** The environment that `${VAR}` references read. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** The interpolated tree, or the problems that stopped it. */
export interface Interpolated {
  readonly value: unknown;
  readonly problems: readonly ConfigProblem[];
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Replaces `${VAR}` in every string of a parsed configuration tree with the environment's value.
 * `${VAR:-fallback}` uses the fallback when VAR is unset or empty; `$${` stands for a literal `${`.
 * A missing variable or a malformed reference is a problem naming the key path; keys are left as
 * they are.
 */
export function interpolateEnvironment(tree: unknown, env: Environment): Interpolated {
  const problems: ConfigProblem[] = [];
  const walk = (node: unknown, path: KeyPath): unknown => {
    if (typeof node === 'string') return interpolateString(node, path, env, problems);
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...path, index]));
    if (typeof node === 'object' && node !== null) {
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item, [...path, key])]));
    }
    return node;
  };
  const value = walk(tree, []);
  return { value, problems };
}

function interpolateString(text: string, path: KeyPath, env: Environment, problems: ConfigProblem[]): string {
  let out = '';
  let from = 0;
  for (;;) {
    const start = text.indexOf('$', from);
    if (start === -1) return out + text.slice(from);
    out += text.slice(from, start);
    if (text.startsWith('$${', start)) {
      out += '${';
      from = start + 3;
      continue;
    }
    if (!text.startsWith('${', start)) {
      out += '$';
      from = start + 1;
      continue;
    }
    const end = text.indexOf('}', start + 2);
    if (end === -1) {
      problems.push({ kind: 'bad_reference', path, message: `"${text.slice(start)}" has no closing "}"` });
      return out;
    }
    out += resolveReference(text.slice(start + 2, end), path, env, problems);
    from = end + 1;
  }
}

function resolveReference(reference: string, path: KeyPath, env: Environment, problems: ConfigProblem[]): string {
  const separator = reference.indexOf(':-');
  const name = separator === -1 ? reference : reference.slice(0, separator);
  if (!VARIABLE_NAME.test(name)) {
    problems.push({ kind: 'bad_reference', path, message: `"\${${reference}}" is not a variable reference (expected \${NAME} or \${NAME:-default})` });
    return '';
  }
  const value = env[name];
  if (separator !== -1) return value === undefined || value === '' ? reference.slice(separator + 2) : value;
  if (value === undefined) {
    problems.push({ kind: 'missing_env', path, message: `environment variable ${name} is not set` });
    return '';
  }
  return value;
}
