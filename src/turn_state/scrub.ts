/**
 * Secret scrubbing for every persisted copy of tool arguments, results and op details
 * (DESIGN §7.6): token-shaped strings by pattern, values under sensitive keys by key.
 */
import { jsonTextDepth, MAX_JSON_DEPTH } from '../core/json_bounds.js';
import { isSensitiveKey, REDACTED, redactSensitiveKeys } from '../core/sensitive_keys.js';

/**
 * One shape of secret. `pattern` is global and matches the secret alone: the context it needs
 * (`Bearer `, `://user:`, `?token=`) sits in look-arounds and is kept. `accept`, when present,
 * must also say yes; it sees the match and the pattern's `key` group, if it has one.
 */
interface SecretShape {
  readonly pattern: RegExp;
  readonly accept?: (secret: string, key: string | undefined) => boolean;
}

const SECRET_SHAPES: readonly SecretShape[] = [
  // PEM private key blocks, armour lines included.
  { pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g },
  // `Bearer <token>`: a token of 8+ characters holding a digit, or of 20+ ("the bearer of" stays).
  { pattern: /(?<=\bBearer\s+)(?=[\w.~+/-]*\d|[\w.~+/-]{20})[\w.~+/-]{8,}=*/gi },
  // `Basic <base64>`: only when it decodes to printable `user:password` ("basic usage" stays).
  { pattern: /(?<=\bBasic\s+)[A-Za-z0-9+/]{4,}={0,2}(?![\w+/=])/gi, accept: decodesToUserPassword },
  // Anthropic API keys.
  { pattern: /\bsk-ant-[\w-]{16,}/g },
  // OpenAI API keys: legacy `sk-…`, project `sk-proj-…`, service-account and admin keys.
  { pattern: /\bsk-(?:proj-|svcacct-|admin-)?[\w-]{20,}/g },
  // GitHub personal, OAuth, user-to-server, server-to-server and refresh tokens.
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{20,}/g },
  // GitHub fine-grained personal access tokens.
  { pattern: /\bgithub_pat_\w{20,}/g },
  // Slack bot, user, app-level, refresh and legacy tokens.
  { pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  // AWS access key ids, long-lived (AKIA) and temporary (ASIA).
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  // JSON Web Tokens: base64url header and payload both starting `{"`, then the signature.
  { pattern: /\beyJ[\w-]{5,}\.eyJ[\w-]{5,}\.[\w-]*/g },
  // Discord bot tokens: base64 user id, timestamp, HMAC.
  { pattern: /\b[MNO][\w-]{23,27}\.[\w-]{6}\.[\w-]{27,}/g },
  // Google API keys.
  { pattern: /\bAIza[\w-]{35}/g },
  // The password in `scheme://user:password@host` (the user name may be empty).
  { pattern: /(?<=\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/?#]*:)[^\s@/?#]+(?=@)/gi },
  // Credential query parameters: `?api_key=`, `&access_token=`, `X-Amz-Signature=`, `sig=` …
  { pattern: /(?<=[?&;](?:[\w.-]*[_.-])?(?:key|apikey|token|password|passwd|pwd|secret|signature|sig|credential|auth)=)[^&#\s]+/gi },
  // The same assignments in running text, such as an error body quoting a request: `invalid token=…`.
  { pattern: /(?<=(?<![\w.-])(?:[\w.-]*[_.-])?(?:key|apikey|token|password|passwd|pwd|secret|signature|sig|credential|auth)=)[^\s&#"'<>,;()[\]{}]+/gi },
  // `"<sensitive key>": "value"` inside text, such as JSON embedded in a tool's output.
  { pattern: /(?<="(?<key>[^"\\]{1,64})"\s*:\s*")(?:[^"\\]|\\.)+(?=")/g, accept: underSensitiveKey },
  // `<Sensitive-Key>: value` lines, such as HTTP headers (`Cookie: …`) or YAML (`password: …`).
  { pattern: /(?<=^[ \t]*(?<key>[A-Za-z][\w-]*)[ \t]*:[ \t]*)\S(?:[^\r\n]*\S)?/gm, accept: underSensitiveKey },
];

function decodesToUserPassword(secret: string): boolean {
  return /^[^\p{Cc}\uFFFD:]*:[^\p{Cc}\uFFFD]*$/u.test(Buffer.from(secret, 'base64').toString('utf8'));
}

function underSensitiveKey(_secret: string, key: string | undefined): boolean {
  return key !== undefined && isSensitiveKey(key);
}

function redactShape(text: string, shape: SecretShape): string {
  let out = '';
  let kept = 0;
  for (const match of text.matchAll(shape.pattern)) {
    if (shape.accept !== undefined && !shape.accept(match[0], match.groups?.['key'])) continue;
    out += text.slice(kept, match.index) + REDACTED;
    kept = match.index + match[0].length;
  }
  return out + text.slice(kept);
}

/**
 * `text` with every token-shaped substring (API keys, bearer and basic credentials, JWTs,
 * passwords and credential parameters in URLs, values of sensitive keys written out as JSON
 * members or header lines) replaced by {@link REDACTED}; the surrounding words stay.
 */
export function scrubText(text: string): string {
  return SECRET_SHAPES.reduce(redactShape, text);
}

/**
 * A deep copy of JSON-like `value` in which every value under a sensitive key (see
 * `isSensitiveKey`), at any depth and of any type, is {@link REDACTED} whole, and every other
 * string has been through {@link scrubText}. Keys are kept; the input is never mutated. Arrays and
 * plain objects are copied; other values are returned as they are.
 */
export function scrubSecrets<T>(value: T): T {
  return redactSensitiveKeys(value, scrubText);
}

/**
 * For a stored string that may hold JSON (a tool result): when `text` parses as a JSON object or
 * array, the JSON of its {@link scrubSecrets} copy (compact); otherwise, and when it nests deeper
 * than {@link MAX_JSON_DEPTH} (DESIGN §9.3), {@link scrubText}`(text)`.
 */
export function scrubJsonText(text: string): string {
  const parsed = parseJsonContainer(text);
  return parsed === undefined ? scrubText(text) : JSON.stringify(scrubSecrets(parsed));
}

function parseJsonContainer(text: string): object | undefined {
  if (!/^\s*[[{]/.test(text) || jsonTextDepth(text) > MAX_JSON_DEPTH) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}
