import type { ToolResultBlock } from '../llm/protocol.js';
import { APPROVAL_TIMEOUT, type OpRecord } from '../turn_state/ledger_types.js';

/** What the model is told of a call an operator confirmed without a result text. */
export const APPLIED_WITHOUT_TEXT = 'An operator confirmed that this call took effect.';

/**
 * An operator's verdict as the call's tool result (DESIGN §9.1): applied → the operator's result
 * text; not applied → an error saying it did not take effect, so the model may propose it again
 * as a new call. The call itself is never sent again.
 */
export function verdictResult(toolUseId: string, op: OpRecord & { readonly state: 'RESOLVED_APPLIED' | 'RESOLVED_NOT_APPLIED' }): ToolResultBlock {
  const text = op.verdict?.text ?? null;
  if (op.state === 'RESOLVED_APPLIED') return { type: 'tool_result', toolUseId, content: text ?? APPLIED_WITHOUT_TEXT, isError: false };
  const note = text === null ? '' : ` (${text})`;
  return {
    type: 'tool_result',
    toolUseId,
    content: `An operator checked and found that this call did not take effect${note}. It was not run again; propose it as a new call if it is still needed.`,
    isError: true,
  };
}

/**
 * A denied call as its tool result (DESIGN §9.2): it never ran; the model reads who denied it and
 * their note (`denied by discord:42: not on Fridays`), or that nobody answered in time.
 */
export function deniedResult(toolUseId: string, op: OpRecord): ToolResultBlock {
  const decision = op.approval?.decision;
  const who = decision === undefined || decision === null ? 'a person' : decision.by;
  const note = decision?.note ?? null;
  const content =
    who === APPROVAL_TIMEOUT
      ? 'not run: denied by timeout: nobody approved this call in time. Do not propose it again unless the user asks.'
      : `not run: denied by ${who}${note === null || note === '' ? '' : `: ${note}`}`;
  return { type: 'tool_result', toolUseId, content, isError: true };
}

/** Why a call that needs approval did not run where no request could be kept: the bot runs without its store. */
export const UNKEPT_APPROVAL = 'not run: this call needs a person’s approval, and without its store the bot cannot keep a request for one';
