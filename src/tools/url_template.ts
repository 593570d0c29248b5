import type { JsonObject, JsonValue } from '../llm/protocol.js';

/** `{name}` in the configured URL: the same pattern the config schema accepts; `split` yields text, name, text, … */
const PLACEHOLDER = /\{([^{}]*)\}/;
/** The scheme and `//` before the authority; the config schema requires an http(s) URL. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
/** A path segment the URL parser removes or turns into a step up: `.`, `..` and their percent-encoded spellings. */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
/** Values a path field may not have: each would change which path is requested. */
const DOT_VALUES: ReadonlySet<string> = new Set(['', '.', '..']);

/** Which part of the URL the scanner is in; only the path is split into segments. */
type Zone = 'authority' | 'path' | 'after_path';

/**
 * The configured URL with its placeholders filled in, or why it cannot be: a field that is
 * missing, or path fields that would not stay in their own segment (each named once).
 */
export type FilledUrl =
  | { readonly kind: 'filled'; readonly url: string; readonly used: ReadonlySet<string> }
  | { readonly kind: 'missing'; readonly name: string }
  | { readonly kind: 'escapes_segment'; readonly names: readonly string[] };

/** One path segment being filled: its text so far and the fields in it. */
interface Segment {
  text: string;
  names: string[];
}

/**
 * Replaces each `{name}` of `template` with that input field, URL-encoded. Encoding keeps `/`,
 * `?` and `#` inside the field, but not `.` and `..`, which the URL parser resolves away; so a
 * field in the path that is empty, `.` or `..`, or that makes its segment a dot segment, is
 * refused (`escapes_segment`) rather than let it move the request to another path.
 */
export function fillUrlTemplate(template: string, input: JsonObject): FilledUrl {
  const pieces = template.split(new RegExp(PLACEHOLDER.source, 'g'));
  const used = new Set<string>();
  const escaping: string[] = [];
  let missing: string | undefined;
  let zone: Zone = 'authority';
  let segment: Segment = { text: '', names: [] };
  const closeSegment = (): void => {
    if (DOT_SEGMENT.test(segment.text)) escaping.push(...segment.names.filter((name) => !escaping.includes(name)));
    segment = { text: '', names: [] };
  };
  const scheme = SCHEME.exec(pieces[0] ?? '')?.[0] ?? '';
  let url = scheme;
  for (const [index, piece] of pieces.entries()) {
    if (index % 2 === 0) {
      for (const char of index === 0 ? piece.slice(scheme.length) : piece) {
        if (char === '?' || char === '#') {
          if (zone === 'path') closeSegment();
          zone = 'after_path';
        } else if (char === '/' || char === '\\') {
          if (zone === 'path') closeSegment();
          if (zone === 'authority') zone = 'path';
        } else if (zone === 'path') {
          segment.text += char;
        }
        url += char;
      }
      continue;
    }
    const value = Object.hasOwn(input, piece) ? input[piece] : undefined;
    if (value === undefined) {
      missing ??= piece;
      continue;
    }
    used.add(piece);
    const text = componentText(value);
    const encoded = encodeURIComponent(text);
    if (zone === 'path') {
      segment.text += encoded;
      segment.names.push(piece);
      if (DOT_VALUES.has(text) && !escaping.includes(piece)) escaping.push(piece);
    }
    url += encoded;
  }
  if (zone === 'path') closeSegment();
  if (missing !== undefined) return { kind: 'missing', name: missing };
  if (escaping.length > 0) return { kind: 'escapes_segment', names: escaping };
  return { kind: 'filled', url, used };
}

/** A value as one URL component: strings as they are, numbers and booleans as written, the rest as JSON. */
export function componentText(value: JsonValue): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}
