import type { Message } from '../llm/protocol.js';
import type { OpRecord } from '../turn_state/ledger_types.js';

/** The first characters of a turn id that name it to people: enough to tell turns apart in practice. */
export const SHORT_TURN_ID_LENGTH = 8;

/** A turn's short id, as notices, logs and the operator commands show it. */
export function shortTurnId(turnId: string): string {
  return turnId.slice(0, SHORT_TURN_ID_LENGTH);
}

/**
 * How people name a call (DESIGN §9.1): its tool call id, written `STEP:CALL` when the turn's
 * transcript holds that id in more than one step (some servers reuse ids across steps).
 */
export function callLabel(op: Pick<OpRecord, 'step' | 'toolCallId'>, transcript: readonly Message[]): string {
  const uses = transcript.flatMap((message) => message.content).filter((block) => block.type === 'tool_use' && block.id === op.toolCallId).length;
  return uses > 1 ? `${op.step}:${op.toolCallId}` : op.toolCallId;
}

/** {@link callLabel} from the turn's ledger rather than its transcript: for those who read the ledger only. */
export function ledgerCallLabel(op: Pick<OpRecord, 'step' | 'toolCallId'>, ops: readonly Pick<OpRecord, 'toolCallId'>[]): string {
  return ops.filter((other) => other.toolCallId === op.toolCallId).length > 1 ? `${op.step}:${op.toolCallId}` : op.toolCallId;
}
