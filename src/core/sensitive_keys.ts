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
 * and arrays, is replaced by {@link REDACTED}. Other values, including class instances such as
 * errors, are returned as they are.
 */
export function redactSensitiveKeys<T>(value: T): T {
  return redact(value, new Set()) as T;
}

function redact(value: unknown, ancestors: Set<object>): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (ancestors.has(value)) return '[Circular]';
  const proto: unknown = Object.getPrototypeOf(value);
  const isArray = Array.isArray(value);
  if (!isArray && proto !== Object.prototype && proto !== null) return value;
  ancestors.add(value);
  try {
    if (isArray) return value.map((item) => redact(item, ancestors));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = isSensitiveKey(key) ? REDACTED : redact(item, ancestors);
    }
    return out;
  } finally {
    ancestors.delete(value);
  }
}
