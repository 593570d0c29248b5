import type { ConfigProblem, KeyPath } from './problems.js';

/** The environment that `${VAR}` references read. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** A variable the environment supplied for a reference. */
export interface FilledVariable {
  readonly name: string;
  readonly value: string;
}

/** A string of the file that held `${VAR}` references, as written and with what filled them in. */
export interface FilledString {
  readonly path: KeyPath;
  /** The string as the file writes it, references and all: what a message may quote. */
  readonly template: string;
  /** The variables the environment supplied for it; a fallback written in the file is not one. */
  readonly variables: readonly FilledVariable[];
  /** The variables it referenced that were unset or empty, so that their fallback (or nothing) stood in. */
  readonly unset: readonly string[];
}

/** The interpolated tree, or the problems that stopped it. */
export interface Interpolated {
  readonly value: unknown;
  readonly problems: readonly ConfigProblem[];
  /** Every string that held a reference, so that no message quotes a value the environment supplied. */
  readonly filled: readonly FilledString[];
  /** The missing variables the caller let pass (see `needed`), each filled in as the empty string. */
  readonly excused: readonly ConfigProblem[];
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Replaces `${VAR}` in every string of a parsed configuration tree with the environment's value.
 * `${VAR:-fallback}` uses the fallback when VAR is unset or empty; `$${` stands for a literal `${`.
 * A missing variable or a malformed reference is a problem naming the key path; keys are left as
 * they are. A missing variable at a path `needed` says is not needed (an operator command reads
 * the store's settings, not the Discord token) is excused instead: it stands as the empty string.
 */
export function interpolateEnvironment(tree: unknown, env: Environment, needed: (path: KeyPath) => boolean = () => true): Interpolated {
  const problems: ConfigProblem[] = [];
  const excused: ConfigProblem[] = [];
  const filled: FilledString[] = [];
  const walk = (node: unknown, path: KeyPath): unknown => {
    if (typeof node === 'string') {
      const findings: Findings = { problems, missing: needed(path) ? problems : excused, variables: [], unset: [], referenced: false };
      const value = interpolateString(node, path, env, findings);
      if (findings.referenced) filled.push({ path, template: node, variables: findings.variables, unset: findings.unset });
      return value;
    }
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...path, index]));
    if (typeof node === 'object' && node !== null) {
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item, [...path, key])]));
    }
    return node;
  };
  const value = walk(tree, []);
  return { value, problems, filled, excused };
}

/** What the interpolation of one string found: what went wrong, the variables it used or found empty, and whether it held a reference. */
interface Findings {
  readonly problems: ConfigProblem[];
  /** Where a missing variable goes: among the problems, or the excused when the caller does not need the string. */
  readonly missing: ConfigProblem[];
  readonly variables: FilledVariable[];
  readonly unset: string[];
  referenced: boolean;
}

function interpolateString(text: string, path: KeyPath, env: Environment, findings: Findings): string {
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
      findings.problems.push({ kind: 'bad_reference', path, message: `"${text.slice(start)}" has no closing "}"` });
      return out;
    }
    findings.referenced = true;
    out += resolveReference(text.slice(start + 2, end), path, env, findings);
    from = end + 1;
  }
}

function resolveReference(reference: string, path: KeyPath, env: Environment, findings: Findings): string {
  const separator = reference.indexOf(':-');
  const name = separator === -1 ? reference : reference.slice(0, separator);
  if (!VARIABLE_NAME.test(name)) {
    findings.problems.push({ kind: 'bad_reference', path, message: `"\${${reference}}" is not a variable reference (expected \${NAME} or \${NAME:-default})` });
    return '';
  }
  const value = env[name];
  if (value === undefined || value === '') findings.unset.push(name);
  if (separator !== -1 && (value === undefined || value === '')) return reference.slice(separator + 2);
  if (value === undefined) {
    findings.missing.push({ kind: 'missing_env', path, message: `environment variable ${name} is not set` });
    return '';
  }
  findings.variables.push({ name, value });
  return value;
}
