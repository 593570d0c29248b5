import type { z } from 'zod';
import type { FilledString } from './interpolate.js';
import { formatKeyPath, type ConfigProblem, type KeyPath } from './problems.js';
import { answeredKey } from './answered_keys.js';

/** The validated configuration, or a problem for every place it breaks the schema. */
export type Validated<T> = { readonly ok: true; readonly config: T } | { readonly ok: false; readonly problems: readonly ConfigProblem[] };

/**
 * Checks an interpolated configuration tree against `schema`. A key written with no value
 * (`discord:` with everything under it commented out) means the same as leaving it out. A problem
 * with a string that `${VAR}` references filled in (`filled`) quotes the string as the file
 * writes it, never the values: they may be secrets.
 */
export function validateConfigTree<S extends z.ZodType>(schema: S, tree: unknown, filled: readonly FilledString[]): Validated<z.output<S>> {
  // One parse a process: compiling zod's fast path for each object schema would cost more than it saves.
  const result = schema.safeParse(withoutEmptyKeys(tree ?? {}), { reportInput: true, jitless: true });
  if (result.success) return { ok: true, config: result.data };
  const filledAt = new Map(filled.map((string) => [formatKeyPath(string.path), string]));
  return { ok: false, problems: result.error.issues.flatMap((issue) => toProblems(schema, issue, filledAt)) };
}

function withoutEmptyKeys(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutEmptyKeys);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(Object.entries(node).flatMap(([key, value]) => (value === null ? [] : [[key, withoutEmptyKeys(value)]])));
}

function toProblems(schema: z.core.$ZodType, issue: z.core.$ZodIssue, filledAt: ReadonlyMap<string, FilledString>): ConfigProblem[] {
  const path = issue.path.filter((segment): segment is string | number => typeof segment !== 'symbol');
  const filled = filledAt.get(formatKeyPath(path));
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeys(schema, path);
    const expected = known.length > 0 ? ` (expected one of: ${known.join(', ')})` : '';
    return issue.keys.map((key): ConfigProblem => {
      const answered = answeredKey([...path, key]);
      if (answered !== undefined) return { ...answered, path: [...path, key] };
      return { kind: 'unknown_key', path: [...path, key], message: `unknown key${expected}` };
    });
  }
  const got = filled === undefined ? describe(issue.input) : `the value of ${describe(filled.template)}`;
  if (issue.code === 'invalid_union') return unionProblems(schema, issue, path, filledAt, got);
  if (issue.code === 'invalid_type') {
    const expected: string = issue.expected;
    return [{ kind: 'invalid_value', path, message: `expected ${TYPE_WORDS[expected] ?? expected}, got ${got}` }];
  }
  if (issue.code === 'invalid_value') {
    return [{ kind: 'invalid_value', path, message: `expected one of ${issue.values.map(describe).join(', ')}; got ${got}` }];
  }
  // A custom rule's message already says what is wrong with the values it names.
  return [{ kind: 'invalid_value', path, message: issue.code === 'custom' ? withReferences(issue.message, filled) : `${issue.message}; got ${got}` }];
}

/**
 * A value that fits none of a union's forms: when its type picks one form (a mapping where the
 * forms are a word or a mapping), what is wrong inside that form; else the forms it may take.
 */
function unionProblems(schema: z.core.$ZodType, issue: z.core.$ZodIssueInvalidUnion, path: KeyPath, filledAt: ReadonlyMap<string, FilledString>, got: string): ConfigProblem[] {
  const isOtherForm = (inner: z.core.$ZodIssue): boolean => inner.path.length === 0 && (inner.code === 'invalid_type' || inner.code === 'invalid_value');
  const fitting = issue.errors.filter((inner) => !inner.every(isOtherForm));
  const [form] = fitting;
  if (fitting.length === 1 && form !== undefined) return form.flatMap((inner) => toProblems(schema, { ...inner, path: [...path, ...inner.path] }, filledAt));
  const forms = issue.errors.flatMap((inner) => inner.filter(isOtherForm).map(formWords));
  return [{ kind: 'invalid_value', path, message: `expected ${forms.join(' or ')}, got ${got}` }];
}

/** What a union's form expected, from the issue of a value that is not of that form. */
function formWords(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_value') return issue.values.map(describe).join(' or ');
  if (issue.code === 'invalid_type') return TYPE_WORDS[issue.expected] ?? issue.expected;
  return issue.message;
}

/** `message` with every value the environment supplied for `filled` written as the reference it came from. */
function withReferences(message: string, filled: FilledString | undefined): string {
  return (filled?.variables ?? []).reduce((text, variable) => (variable.value === '' ? text : text.replaceAll(variable.value, `\${${variable.name}}`)), message);
}

/** Zod's type names in the words of a YAML file. */
const TYPE_WORDS: Readonly<Partial<Record<string, string>>> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
};

/** The password of a `scheme://user:password@host` URL, wherever one sits in a value. */
const URL_PASSWORD = /(\/\/[^/:@\s]*:)[^@\s/]*@/g;

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  // A value quoted back never shows a password written into a URL.
  const text = JSON.stringify(typeof value === 'string' ? value.replace(URL_PASSWORD, '$1***@') : value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

interface SchemaDef {
  readonly type: string;
  readonly innerType?: z.core.$ZodType;
  readonly in?: z.core.$ZodType;
  readonly element?: z.core.$ZodType;
  readonly shape?: Readonly<Record<string, z.core.$ZodType>>;
  readonly options?: readonly z.core.$ZodType[];
}

const defOf = (schema: z.core.$ZodType): SchemaDef => schema._zod.def;

/** The keys the schema allows in the mapping at `path`, for the message about an unknown one. */
function knownKeys(schema: z.core.$ZodType, path: KeyPath): string[] {
  let def = defOf(schema);
  for (let step = 0; ;) {
    const inner = def.innerType ?? def.in ?? def.options?.find((option) => defOf(option).shape !== undefined);
    if (inner !== undefined) {
      def = defOf(inner);
      continue;
    }
    if (step === path.length) return def.shape === undefined ? [] : Object.keys(def.shape);
    const segment = path[step++];
    const next = typeof segment === 'number' ? def.element : segment === undefined ? undefined : def.shape?.[segment];
    if (next === undefined) return [];
    def = defOf(next);
  }
}
