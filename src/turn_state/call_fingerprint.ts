import { createHash } from 'node:crypto';
import type { OpKey } from './ledger_types.js';

/** The key an idempotent tool sends with the call: the same for the op across crashes and resumes. */
export function idempotencyKey(key: OpKey): string {
  return `hf_${sha256(`${key.turnId}\n${key.step}\n${key.toolCallId}`).slice(0, 40)}`;
}

/** A digest of a call's tool name and input, equal for equal inputs whatever their key order. */
export function callFingerprint(toolName: string, input: unknown): string {
  return sha256(`${toolName}\n${canonicalJson(input)}`);
}

/** JSON with object keys sorted. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
