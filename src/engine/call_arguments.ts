import { assertNever } from '../core/assert_never.js';
import type { JsonObject, ToolUseBlock } from '../llm/protocol.js';
import type { OpRecord } from '../turn_state/ledger_types.js';

/**
 * Where a batch comes from: `model`, the batch the model has just proposed, whose arguments are
 * in hand as it gave them; `log`, a batch read back from the store on a resume, whose
 * arguments exist only as the stored copies, scrubbed of secrets (DESIGN §7.6).
 */
export type BatchSource = 'model' | 'log';

/** What a call that cannot be run faithfully is answered with, so that the model may propose it again. */
export const WITHHELD_CALL =
  'not run: this call was interrupted before it was made, and its arguments held secrets, which are never stored; nothing was sent. Propose the call again if it is still needed.';

/** What a read that cannot be run again faithfully is answered with: with no RUNNING mark, nobody knows whether it began. */
export const WITHHELD_READ = 'not run again: this read was interrupted, before or while it ran, and its arguments held secrets, which are never stored. Propose the call again if it is still needed.';

/** What an uncertain read that cannot be run again faithfully is answered with. */
export const WITHHELD_RETRY = 'not run again: this call was interrupted while it ran, and its arguments held secrets, which are never stored. Propose the call again if it is still needed.';

/**
 * The arguments a call runs with: the model's as proposed while the batch is in hand, the stored
 * copy on a resume. A stored copy that had a secret scrubbed out of it is not the call the
 * model proposed: `undefined`, and the call must not run at all.
 */
export function callArguments(source: BatchSource, use: ToolUseBlock, op: OpRecord): JsonObject | undefined {
  switch (source) {
    case 'model':
      return use.input;
    case 'log':
      return op.inputRedacted ? undefined : op.input;
    default:
      return assertNever(source);
  }
}
