/**
 * The bound on every walk over JSON that came from outside (DESIGN §9.3): what the model, a tool,
 * a user or a stored row sends is untrusted in shape as well as content. `JSON.parse` builds a
 * value of any depth without trouble, but a recursive walk over it (redaction, scrubbing, the
 * codec, validation, `JSON.stringify` itself) overflows the stack a few thousand levels down. So
 * text nested deeper than {@link MAX_JSON_DEPTH} is refused where it enters, and every walk stops
 * there too.
 *
 * @example
 * ```ts
 * jsonTextDepth('{"a":[1,{"b":2}]}'); // 3
 * jsonTextDepth('['.repeat(10_000));  // MAX_JSON_DEPTH + 1: counting stops past the bound
 * nestsDeeperThan({ a: [[[]]] }, 2);  // true
 * ```
 */

/** How deep any walk over JSON from outside goes: far deeper than any tool's arguments or results need. */
export const MAX_JSON_DEPTH = 100;

/** What a bounded walk puts in place of a value nested deeper than {@link MAX_JSON_DEPTH}. */
export const NESTED_TOO_DEEP = '[nested too deep]';

/**
 * How deeply `text` nests arrays and objects, counted from its brackets outside strings without
 * parsing it, in one pass; counting stops at `limit + 1`. Text that is not JSON is measured all
 * the same: only the brackets count.
 */
export function jsonTextDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === BACKSLASH) i++;
      else if (char === QUOTE) inString = false;
      continue;
    }
    if (char === QUOTE) inString = true;
    else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if ((char === CLOSE_BRACE || char === CLOSE_BRACKET) && depth > 0) depth--;
  }
  return deepest;
}

/** Whether `value` nests arrays and plain objects deeper than `limit`, found without recursion. */
export function nestsDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const pending: { readonly value: unknown; readonly depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    const depth = next.depth + 1;
    if (depth > limit) return true;
    for (const item of Array.isArray(next.value) ? (next.value as unknown[]) : Object.values(next.value)) pending.push({ value: item, depth });
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
