import { createHash } from 'node:crypto';
import { MAX_JSON_DEPTH, NESTED_TOO_DEEP } from '../core/json_bounds.js';
import type { OpKey } from './ledger_types.js';

/** The key an idempotent tool sends with the call: the same for the op across crashes and resumes. */
export function idempotencyKey(key: OpKey): string {
  return `hf_${sha256(`${key.turnId}\n${key.step}\n${key.toolCallId}`).slice(0, 40)}`;
}

/** A digest of a call's tool name and input, equal for equal inputs whatever their key order. */
export function callFingerprint(toolName: string, input: unknown): string {
  return sha256(`${toolName}\n${canonicalJson(input)}`);
}

/** JSON with object keys sorted; a value nested deeper than {@link MAX_JSON_DEPTH} is written as {@link NESTED_TOO_DEEP}. */
function canonicalJson(value: unknown, depth = 0): string {
  if (typeof value === 'object' && value !== null && depth >= MAX_JSON_DEPTH) return JSON.stringify(NESTED_TOO_DEEP);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v, depth + 1)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
