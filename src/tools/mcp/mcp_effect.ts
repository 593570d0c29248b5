import type { EffectClass } from '../../turn_state/ledger_types.js';

/** The hints of MCP's `ToolAnnotations` that decide an effect class; a server may leave any out. */
export interface EffectHints {
  readonly readOnlyHint?: boolean | undefined;
  readonly idempotentHint?: boolean | undefined;
}

/**
 * The effect class of an MCP tool (DESIGN §6): the one `tools.mcp[].effects` configures for it;
 * else `read` when the server says it only reads (`readOnlyHint: true`), `idempotent` when it
 * says a repeated call has no further effect (`idempotentHint: true`), and `write` otherwise. The
 * spec calls annotations hints a server may omit, so a missing one counts as the most dangerous
 * answer: a call whose effect is unknown is never repeated on its own.
 */
export function effectOf(hints: EffectHints | undefined, configured: EffectClass | undefined): EffectClass {
  if (configured !== undefined) return configured;
  if (hints?.readOnlyHint === true) return 'read';
  if (hints?.idempotentHint === true) return 'idempotent';
  return 'write';
}
