import { REDACTED } from '../core/sensitive_keys.js';
import type { JsonValue } from '../llm/protocol.js';

/**
 * Whether a stored copy had a secret scrubbed out of it: every redaction (DESIGN §7.6) leaves
 * {@link REDACTED} where the secret was, as a whole value or inside a string, and keys are kept
 * as they are. A value the model itself wrote with that marker in it counts as redacted too,
 * which errs on the side of never running a copy that may not be the original.
 */
export function holdsRedaction(value: JsonValue): boolean {
  if (typeof value === 'string') return value.includes(REDACTED);
  if (Array.isArray(value)) return value.some(holdsRedaction);
  if (typeof value === 'object' && value !== null) return Object.values(value).some(holdsRedaction);
  return false;
}
