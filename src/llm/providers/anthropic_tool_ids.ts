import { createHash } from 'node:crypto';

/** The tool call ids Anthropic accepts. */
const ANTHROPIC_TOOL_ID = /^[A-Za-z0-9_-]+$/;

/**
 * A tool call id as Anthropic accepts it. A transcript may hold ids another provider made (a turn
 * that changed model, DESIGN §5.4), some with characters Anthropic refuses (`functions.search:0`):
 * those are rewritten the same way in a call and in its result, with a digest of the original so
 * that two ids never become one. Any other id is sent as it is.
 */
export function anthropicToolId(id: string): string {
  if (ANTHROPIC_TOOL_ID.test(id)) return id;
  const digest = createHash('sha256').update(id).digest('hex').slice(0, 12);
  return `${id.replace(/[^A-Za-z0-9_-]/g, '_')}_${digest}`;
}
