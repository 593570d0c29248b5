import { assertNever } from '../../core/assert_never.js';
import { ledgerCallLabel } from '../../engine/call_label.js';
import type { OpRecord } from '../../turn_state/ledger_types.js';
import type { TurnRecord } from '../../turn_state/turn_types.js';
import type { ReplySink } from '../transport.js';
import { resolvedText, verdictText, waitingForVerdictText, type NamedCall } from '../notices/texts.js';

/** What an operator found about a call with a verdict, as people are told it: `took effect: …` or `did not take effect (…)`; `undefined` without one. */
export function verdictPhrase(op: OpRecord): string | undefined {
  if (op.verdict === null) return undefined;
  const { text } = op.verdict;
  switch (op.state) {
    case 'RESOLVED_APPLIED':
      return verdictText(true, text);
    case 'RESOLVED_NOT_APPLIED':
      return verdictText(false, text);
    case 'PREPARED':
    case 'AWAITING_APPROVAL':
    case 'APPROVED':
    case 'DENIED':
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

/** How the requester is told what the operators found, one phrase per call that had a verdict. */
function verdictLines(ops: readonly OpRecord[]): string[] {
  return ops.flatMap((op) => {
    const found = verdictPhrase(op);
    return found === undefined ? [] : [`\`${op.toolName}\` (call ${ledgerCallLabel(op, ops)}) ${found}`];
  });
}

/** The calls of a parked turn that still wait for an operator's verdict, as people name them. */
export function callsAwaitingVerdict(ops: readonly OpRecord[]): NamedCall[] {
  return ops.filter((op) => op.state === 'MANUAL_RESOLUTION_REQUIRED').map((op) => ({ toolName: op.toolName, label: ledgerCallLabel(op, ops) }));
}

/**
 * The `resolved` notice (DESIGN §9.1): what the operators found about the turn's uncertain calls,
 * and how it goes on — by itself, or on the requester's `resume`.
 */
export function resolvedNotice(turn: TurnRecord, ops: readonly OpRecord[], continuing: boolean): string {
  return resolvedText(turn.turnId, verdictLines(ops), continuing);
}

/** Why a `resume` of a parked turn cannot go on yet: which calls still wait for an operator. */
export function stillAwaitingNotice(turn: TurnRecord, ops: readonly OpRecord[]): string {
  return waitingForVerdictText(turn.turnId, callsAwaitingVerdict(ops));
}

/** Posts the `resolved` notice of `turn` in its channel, as an answer to its original message. */
export function postResolved(sink: ReplySink, turn: TurnRecord, text: string): void {
  sink.post({ type: 'message', channelId: turn.identity.channelId, inReplyTo: turn.identity.messageId, turn: turn.turnId, kind: 'notice', notice: 'resolved', text });
}
