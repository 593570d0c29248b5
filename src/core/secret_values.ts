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
  /** The first character of every form: where a secret could begin. */
  readonly #starts: ReadonlySet<string>;

  private constructor(
    /** Every form of every secret, longest first. */
    private readonly forms: readonly string[],
    /** The forms as one pattern; `undefined` when there is none. */
    private readonly pattern: RegExp | undefined,
    /** How many distinct secrets are redacted. */
    readonly size: number,
  ) {
    this.#starts = new Set(forms.map((form) => form.charAt(0)));
  }

  /** The redactor of `values`; those shorter than {@link MIN_SECRET_LENGTH} are left out. */
  static of(values: Iterable<string>): SecretValues {
    const secrets = new Set([...values].filter((value) => value.trim().length >= MIN_SECRET_LENGTH));
    const forms = [...new Set([...secrets].flatMap((value) => [value, value.trim(), JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]))].sort((a, b) => b.length - a.length);
    const alternatives = forms.map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    return new SecretValues(forms, alternatives.length === 0 ? undefined : new RegExp(alternatives.join('|'), 'g'), secrets.size);
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

  /**
   * A redactor for text that arrives in pieces, such as a reply as it streams: a secret split
   * across two pieces is redacted all the same, because the end of a piece that could be the start
   * of a secret is held back until the next piece shows whether it is.
   *
   * @example
   * ```ts
   * const stream = SecretValues.of(['opaque-key-4f9a2c71']).stream();
   * stream.push('the key is opaque-ke'); // 'the key is '
   * stream.push('y-4f9a2c71, as said');  // '[REDACTED], as said'
   * stream.end();                        // ''
   * ```
   */
  stream(): StreamRedactor {
    let held = '';
    return {
      push: (text) => {
        const redacted = this.redact(held + text);
        const start = this.#unfinishedSecretAt(redacted);
        held = redacted.slice(start);
        return redacted.slice(0, start);
      },
      end: () => {
        const rest = held;
        held = '';
        return rest;
      },
    };
  }

  /** Where the end of `text` could be the start of a secret still to come; `text.length` when nowhere. */
  #unfinishedSecretAt(text: string): number {
    const longest = this.forms[0]?.length ?? 0;
    for (let start = Math.max(0, text.length - longest + 1); start < text.length; start++) {
      if (!this.#starts.has(text.charAt(start))) continue;
      const tail = text.slice(start);
      if (this.forms.some((form) => form.length > tail.length && form.startsWith(tail))) return start;
    }
    return text.length;
  }
}

/** Redacts text that arrives in pieces (see {@link SecretValues.stream}). */
export interface StreamRedactor {
  /** What of the text so far may be shown now, redacted; the rest waits for the next piece. */
  push(text: string): string;
  /** What was held back, once no more text comes: it is no secret. */
  end(): string;
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
