import { assertNever } from '../core/assert_never.js';
import { ledgerCallLabel, shortTurnId } from '../engine/call_label.js';
import type { OpRecord } from '../turn_state/ledger_types.js';
import type { TurnRecord } from '../turn_state/turn_types.js';
import type { ReplySink } from './transport.js';

/** What an operator found about a call with a verdict, as people are told it: `took effect: …` or `did not take effect (…)`; `undefined` without one. */
export function verdictPhrase(op: OpRecord): string | undefined {
  if (op.verdict === null) return undefined;
  const { text } = op.verdict;
  switch (op.state) {
    case 'RESOLVED_APPLIED':
      return `took effect${text === null ? '' : `: ${text}`}`;
    case 'RESOLVED_NOT_APPLIED':
      return `did not take effect${text === null ? '' : ` (${text})`}`;
    case 'PREPARED':
    case 'RUNNING':
    case 'APPLIED':
    case 'DEFINITELY_FAILED':
    case 'OUTCOME_UNKNOWN':
    case 'RECONCILED_APPLIED':
    case 'RECONCILED_FAILED':
    case 'MANUAL_RESOLUTION_REQUIRED':
      return undefined;
    default:
      return assertNever(op.state);
  }
}

/** How the requester is told what the operators found, one line per call that had a verdict. */
function verdictLines(ops: readonly OpRecord[]): string[] {
  return ops.flatMap((op) => {
    const found = verdictPhrase(op);
    return found === undefined ? [] : [`\`${op.toolName}\` (call ${ledgerCallLabel(op, ops)}) ${found}`];
  });
}

/**
 * The `resolved` notice (DESIGN §9.1): what the operators found about the turn's uncertain calls,
 * and how it goes on — by itself, or on the requester's `resume`.
 */
export function resolvedNotice(turn: TurnRecord, ops: readonly OpRecord[], continuing: boolean): string {
  const found = verdictLines(ops);
  const next = continuing ? 'I am continuing your request now.' : 'Type `resume` to continue your request.';
  return `An operator checked your saved request (turn ${shortTurnId(turn.turnId)}): ${found.length === 0 ? 'every uncertain call has a verdict' : found.join('; ')}. ${next}`;
}

/** Why a `resume` of a parked turn cannot go on yet: which calls still wait for an operator. */
export function stillAwaitingNotice(turn: TurnRecord, ops: readonly OpRecord[]): string {
  const waiting = ops.filter((op) => op.state === 'MANUAL_RESOLUTION_REQUIRED').map((op) => `\`${op.toolName}\` (call ${ledgerCallLabel(op, ops)})`);
  return `Your request (turn ${shortTurnId(turn.turnId)}) is waiting for an operator to check whether ${waiting.join(', ') || 'its uncertain calls'} took effect. I will tell you here once that is done; then \`resume\` continues it.`;
}

/** Posts the `resolved` notice of `turn` in its channel, as an answer to its original message. */
export function postResolved(sink: ReplySink, turn: TurnRecord, text: string): void {
  sink.post({ type: 'message', channelId: turn.identity.channelId, inReplyTo: turn.identity.messageId, turn: turn.turnId, kind: 'notice', notice: 'resolved', text });
}
