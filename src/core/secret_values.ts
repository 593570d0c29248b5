import { MAX_JSON_DEPTH, NESTED_TOO_DEEP } from './json_bounds.js';
import { REDACTED } from './sensitive_keys.js';

/**
 * Rewrites text so that no secret it holds is written down: the port through which the logger and
 * the store redact what the configuration knows to be secret.
 */
export interface Redactor {
  redact(text: string): string;
}

/** Values shorter than this are never redacted: they would match ordinary words and numbers. */
export const MIN_SECRET_LENGTH = 8;

/**
 * The secret values of the running configuration (API keys, the bot token, secret header values),
 * each redacted wherever it appears inside a string: as written, trimmed, JSON-escaped or
 * URL-encoded, as an error body or a URL may echo it. Built once at start-up.
 */
export class SecretValues implements Redactor {
  private constructor(
    /** Every form of every secret, longest first, as one pattern; `undefined` when there is none. */
    private readonly pattern: RegExp | undefined,
    /** How many distinct secrets are redacted. */
    readonly size: number,
  ) {}

  /** The redactor of `values`; those shorter than {@link MIN_SECRET_LENGTH} are left out. */
  static of(values: Iterable<string>): SecretValues {
    const secrets = new Set([...values].filter((value) => value.trim().length >= MIN_SECRET_LENGTH));
    const forms = new Set([...secrets].flatMap((value) => [value, value.trim(), JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]));
    const alternatives = [...forms].sort((a, b) => b.length - a.length).map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    return new SecretValues(alternatives.length === 0 ? undefined : new RegExp(alternatives.join('|'), 'g'), secrets.size);
  }

  /** `text` with every secret in it replaced by {@link REDACTED}. */
  redact(text: string): string {
    return this.pattern === undefined ? text : text.replace(this.pattern, REDACTED);
  }

  /**
   * A copy of JSON-like `value` with {@link redact} applied to every string of plain objects and
   * arrays; keys and other values are kept, and the input is never mutated. A value nested deeper
   * than {@link MAX_JSON_DEPTH} is replaced by {@link NESTED_TOO_DEEP}: nothing below it is kept.
   */
  redactDeep<T>(value: T): T {
    return this.pattern === undefined ? value : (redactStrings(value, (text) => this.redact(text)) as T);
  }
}

/** Redacts nothing: for a configuration without secrets, and for tests that need none. */
export const NO_SECRETS = SecretValues.of([]);

function redactStrings(value: unknown, redact: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  if (typeof value !== 'object' || value === null) return value;
  const isArray = Array.isArray(value);
  const proto: unknown = Object.getPrototypeOf(value);
  if (!isArray && proto !== Object.prototype && proto !== null) return value;
  if (depth >= MAX_JSON_DEPTH) return NESTED_TOO_DEEP;
  if (isArray) return (value as unknown[]).map((item) => redactStrings(item, redact, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactStrings(item, redact, depth + 1)]));
}
