import type { Message } from './protocol.js';
import { assertNever } from '../core/assert_never.js';
import { marked } from '../core/marked.js';

/** The ways a transcript can break tool-pair validity. */
export type ToolPairViolation =
  | { readonly kind: 'unanswered'; readonly toolUseId: string; readonly messageIndex: number }
  | { readonly kind: 'orphan_result'; readonly toolUseId: string; readonly messageIndex: number }
  | { readonly kind: 'duplicate_result'; readonly toolUseId: string; readonly messageIndex: number }
  | { readonly kind: 'duplicate_use_id'; readonly toolUseId: string; readonly messageIndex: number }
  | { readonly kind: 'empty_use_id'; readonly messageIndex: number }
  | { readonly kind: 'result_in_assistant_message'; readonly toolUseId: string; readonly messageIndex: number };

/**
 * Tool-pair validity (DESIGN §4), the one check every layer uses before a model call: each
 * `tool_use` of an assistant message is answered by exactly one `tool_result` in the messages
 * after it and before the next assistant message; no result answers a call that was not made
 * there; call ids are non-empty and unique within their message. Returns every violation.
 */
export function validateToolPairs(messages: readonly Message[]): ToolPairViolation[] {
  const violations: ToolPairViolation[] = [];
  let open = new Map<string, { messageIndex: number; answered: boolean }>();
  const closeStep = (): void => {
    for (const [toolUseId, call] of open) {
      if (!call.answered) violations.push({ kind: 'unanswered', toolUseId, messageIndex: call.messageIndex });
    }
    open = new Map();
  };
  messages.forEach((message, messageIndex) => {
    if (message.role === 'assistant') closeStep();
    for (const block of message.content) {
      if (block.type === 'tool_use') {
        if (message.role !== 'assistant') continue;
        if (block.id === '') violations.push({ kind: 'empty_use_id', messageIndex });
        else if (open.has(block.id)) violations.push({ kind: 'duplicate_use_id', toolUseId: block.id, messageIndex });
        else open.set(block.id, { messageIndex, answered: false });
      } else if (block.type === 'tool_result') {
        const call = open.get(block.toolUseId);
        if (message.role === 'assistant') violations.push({ kind: 'result_in_assistant_message', toolUseId: block.toolUseId, messageIndex });
        else if (call === undefined) violations.push({ kind: 'orphan_result', toolUseId: block.toolUseId, messageIndex });
        else if (call.answered) violations.push({ kind: 'duplicate_result', toolUseId: block.toolUseId, messageIndex });
        else call.answered = true;
      }
    }
  });
  closeStep();
  return violations;
}

const TOOL_PAIR_ERROR = marked<ToolPairError>('ToolPairError');

/** A transcript about to be sent to a model is not tool-pair valid: a bug upstream, never weather. */
export class ToolPairError extends Error {
  override readonly name = 'ToolPairError';

  constructor(readonly violations: readonly ToolPairViolation[]) {
    super(`transcript is not tool-pair valid: ${violations.map(describeViolation).join('; ')}`);
    TOOL_PAIR_ERROR.mark(this);
  }
}

export function isToolPairError(error: unknown): error is ToolPairError {
  return TOOL_PAIR_ERROR.is(error);
}

/** @throws {ToolPairError} when {@link validateToolPairs} finds anything. */
export function assertToolPairs(messages: readonly Message[]): void {
  const violations = validateToolPairs(messages);
  if (violations.length > 0) throw new ToolPairError(violations);
}

function describeViolation(violation: ToolPairViolation): string {
  const at = `message ${violation.messageIndex}`;
  switch (violation.kind) {
    case 'unanswered':
      return `tool call ${violation.toolUseId} (${at}) has no result`;
    case 'orphan_result':
      return `result for ${violation.toolUseId} (${at}) answers no open call`;
    case 'duplicate_result':
      return `tool call ${violation.toolUseId} is answered twice (${at})`;
    case 'duplicate_use_id':
      return `tool call id ${violation.toolUseId} is used twice (${at})`;
    case 'empty_use_id':
      return `a tool call has an empty id (${at})`;
    case 'result_in_assistant_message':
      return `result for ${violation.toolUseId} sits in an assistant message (${at})`;
    default:
      return assertNever(violation);
  }
}
