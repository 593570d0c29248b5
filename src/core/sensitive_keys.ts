import { MAX_JSON_DEPTH, NESTED_TOO_DEEP } from './json_bounds.js';

/** What replaces a secret value wherever one is written down. */
export const REDACTED = '[REDACTED]';

/**
 * Keys whose values are secrets, compared after normalisation (lower case, without `-`, `_`,
 * `.` and spaces) and matched exactly, so `author` is not mistaken for `auth`.
 */
const SENSITIVE_KEYS: ReadonlySet<string> = new Set([
  'accesstoken',
  'apikey',
  'apikeys',
  'auth',
  'authorization',
  'bearer',
  'bottoken',
  'clientsecret',
  'cookie',
  'credentials',
  'idtoken',
  'passphrase',
  'passwd',
  'password',
  'privatekey',
  'proxyauthorization',
  'refreshtoken',
  'secret',
  'sessiontoken',
  'setcookie',
  'token',
  'xapikey',
]);

/** Whether a value stored under `key` must never be logged or persisted in the clear. */
export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEYS.has(key.toLowerCase().replace(/[-_.\s]/g, ''));
}

/**
 * A copy of `value` in which every value under a sensitive key, at any depth of plain objects
 * and arrays, is replaced by {@link REDACTED}, and every other string is passed through
 * `scrubString` (unchanged by default). Class instances such as errors are returned as they are;
 * a cycle becomes `[Circular]`, and a value nested deeper than {@link MAX_JSON_DEPTH} becomes
 * {@link NESTED_TOO_DEEP}. The input is never mutated.
 */
export function redactSensitiveKeys<T>(value: T, scrubString: (text: string) => string = (text) => text): T {
  return redact(value, scrubString, new Set()) as T;
}

function redact(value: unknown, scrubString: (text: string) => string, ancestors: Set<object>): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (typeof value !== 'object' || value === null) return value;
  if (ancestors.has(value)) return '[Circular]';
  const proto: unknown = Object.getPrototypeOf(value);
  const isArray = Array.isArray(value);
  if (!isArray && proto !== Object.prototype && proto !== null) return value;
  if (ancestors.size >= MAX_JSON_DEPTH) return NESTED_TOO_DEEP;
  ancestors.add(value);
  try {
    if (isArray) return value.map((item) => redact(item, scrubString, ancestors));
    // fromEntries keeps a parsed "__proto__" key as plain data instead of changing the copy's prototype.
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, isSensitiveKey(key) ? REDACTED : redact(item, scrubString, ancestors)]));
  } finally {
    ancestors.delete(value);
  }
}
