/**
 * Exact, non-throwing checks of untrusted stored data, for the checkpoint codec (DESIGN §7.5).
 * Every check appends problems prefixed with the path of the value it judged and never throws,
 * whatever it is given: a value of the wrong type is reported, not coerced. Only plain data is
 * accepted (objects whose prototype is `Object.prototype` or `null`, arrays, strings, finite
 * numbers, booleans, `null`), which is all a `JSON.parse` can produce.
 */
import { assertNever } from '../core/assert_never.js';
import { MAX_JSON_DEPTH } from '../core/json_bounds.js';

/** A plain data object, read-only. */
export type PlainObject = Readonly<Record<string, unknown>>;

/** Whether `value` is a plain object: not `null`, not an array, not a class instance. */
export function isPlainObject(value: unknown): value is PlainObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** The path of `key` inside the value at `path`: `a.b` for identifiers, `a["x y"]` otherwise. */
export function pathOf(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** A short description of a value for a problem message; never runs the value's own code. */
export function describeValue(value: unknown): string {
  const type = typeof value;
  switch (type) {
    case 'string':
      return JSON.stringify(String(value).length > 40 ? `${String(value).slice(0, 40)}…` : value);
    case 'bigint':
      return `${String(value)}n`;
    case 'number':
    case 'boolean':
    case 'undefined':
      return String(value);
    case 'symbol':
    case 'function':
      return `a ${type}`;
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value)) return 'an array';
      return isPlainObject(value) ? 'an object' : 'a non-plain object';
    default:
      return assertNever(type);
  }
}

/**
 * `value` when it is a plain object holding every `required` key and no key outside `required`
 * and `optional`; each missing and each unknown key is a problem of its own. The object is
 * returned whenever it is a plain object, so that its fields can still be checked one by one.
 */
export function exactObject(value: unknown, path: string, problems: string[], required: readonly string[], optional: readonly string[] = []): PlainObject | undefined {
  if (!isPlainObject(value)) {
    problems.push(`${path}: must be an object, got ${describeValue(value)}`);
    return undefined;
  }
  for (const key of required) if (!Object.hasOwn(value, key)) problems.push(`${pathOf(path, key)}: is missing`);
  for (const key of Object.keys(value)) {
    if (!required.includes(key) && !optional.includes(key)) problems.push(`${pathOf(path, key)}: is not a known field`);
  }
  return value;
}

/** A check of one field's value; what it returns is the caller's business. */
export type FieldCheck = (value: unknown, path: string, problems: string[]) => unknown;

/**
 * {@link exactObject} with a check for each field: `required` and `optional` name the fields, and
 * each field present is checked (a missing one is reported once, as missing).
 */
export function checkObject(value: unknown, path: string, problems: string[], required: Readonly<Record<string, FieldCheck>>, optional: Readonly<Record<string, FieldCheck>> = {}): void {
  const object = exactObject(value, path, problems, Object.keys(required), Object.keys(optional));
  for (const [key, check] of [...Object.entries(required), ...Object.entries(optional)]) {
    if (object !== undefined && Object.hasOwn(object, key)) check(object[key], pathOf(path, key), problems);
  }
}

/** `value` when it is a boolean; `0`, `1` and `"false"` are not. */
export function readBoolean(value: unknown, path: string, problems: string[]): boolean | undefined {
  if (typeof value === 'boolean') return value;
  problems.push(`${path}: must be a boolean, got ${describeValue(value)}`);
  return undefined;
}

/** `value` when it is a string of at most `maxLength` UTF-16 units. */
export function readString(value: unknown, path: string, problems: string[], maxLength = Number.POSITIVE_INFINITY): string | undefined {
  if (typeof value !== 'string') {
    problems.push(`${path}: must be a string, got ${describeValue(value)}`);
    return undefined;
  }
  if (value.length > maxLength) {
    problems.push(`${path}: must be at most ${maxLength} characters, got ${value.length}`);
    return undefined;
  }
  return value;
}

/** `value` when it is a safe integer (a number, not a string or bigint) within `[min, max]`. */
export function readInteger(value: unknown, path: string, problems: string[], min: number, max: number): number | undefined {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    problems.push(`${path}: must be a safe integer, got ${describeValue(value)}`);
    return undefined;
  }
  if (value < min || value > max) {
    problems.push(`${path}: must be between ${min} and ${max}, got ${value}`);
    return undefined;
  }
  return value;
}

/** `value` when it is an array; its entries are the caller's to check. */
export function readArray(value: unknown, path: string, problems: string[]): readonly unknown[] | undefined {
  if (Array.isArray(value)) return value as readonly unknown[];
  problems.push(`${path}: must be an array, got ${describeValue(value)}`);
  return undefined;
}

/**
 * Whether `value` is a JSON value: plain objects and arrays of JSON values, strings, finite
 * numbers, booleans, `null`. A value that contains itself, or nests deeper than
 * {@link MAX_JSON_DEPTH}, is a problem rather than an endless walk.
 */
export function checkJsonValue(value: unknown, path: string, problems: string[], ancestors: Set<object> = new Set(), depth = 0): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) problems.push(`${path}: must be a finite number, got ${describeValue(value)}`);
    return;
  }
  if (!Array.isArray(value) && !isPlainObject(value)) {
    problems.push(`${path}: must be a JSON value, got ${describeValue(value)}`);
    return;
  }
  if (ancestors.has(value)) {
    problems.push(`${path}: contains itself`);
    return;
  }
  if (depth >= MAX_JSON_DEPTH) {
    problems.push(`${path}: nests deeper than ${MAX_JSON_DEPTH} levels`);
    return;
  }
  ancestors.add(value);
  if (Array.isArray(value)) {
    const entries = value as readonly unknown[];
    for (let index = 0; index < entries.length; index++) checkJsonValue(entries[index], pathOf(path, index), problems, ancestors, depth + 1);
  } else {
    for (const [key, entry] of Object.entries(value)) checkJsonValue(entry, pathOf(path, key), problems, ancestors, depth + 1);
  }
  ancestors.delete(value);
}
