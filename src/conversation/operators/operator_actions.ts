import { ledgerCallLabel } from '../../engine/call_label.js';
import type { ApprovalOutcome } from '../../turn_state/approval_store.js';
import { APPROVAL_TIMEOUT, type ApprovalVerdict, type OpRecord } from '../../turn_state/ledger_types.js';
import type { OperatorStore, TurnFilter, TurnOverview, VerdictOutcome, VerdictRefusal } from '../../turn_state/operator_store.js';
import type { TurnRecord, TurnStatus } from '../../turn_state/turn_types.js';

/** The statuses an operator is shown by default: turns that wait for someone (DESIGN §9.1, §9.2). */
export const ATTENTION_STATUSES: readonly TurnStatus[] = ['SUSPENDED', 'AWAITING_RESOLUTION', 'AWAITING_APPROVAL'];

/** How a turn named by an operator was found: its id, or a prefix of it that names exactly one turn. */
export type TurnLookup = { readonly kind: 'found'; readonly turn: TurnRecord } | { readonly kind: 'not_found' } | { readonly kind: 'ambiguous'; readonly candidates: readonly TurnRecord[] };

/** How a call named by an operator was found in a turn's ledger: `CALL`, or `STEP:CALL`. */
export type CallLookup = { readonly kind: 'found'; readonly op: OpRecord } | { readonly kind: 'not_found' } | { readonly kind: 'ambiguous'; readonly labels: readonly string[] };

/** What an operator's verdict came to; a refusal says why, in words an operator can act on. */
export type VerdictAttempt =
  | (Extract<VerdictOutcome, { kind: 'recorded' }> & { readonly label: string })
  | { readonly kind: 'refused'; readonly reason: VerdictRefusal | 'turn_ambiguous' | 'call_ambiguous'; readonly message: string };

/** What an operator's answer to a request for approval came to; a refusal says why, and what became of the call. */
export type ApprovalAttempt =
  | (Extract<ApprovalOutcome, { kind: 'recorded' }> & { readonly label: string })
  | { readonly kind: 'refused'; readonly reason: NamingRefusal['reason'] | 'not_awaiting_approval'; readonly message: string };

/** What an operator asks: an answer to one call's request for approval, the turn and call as people name them. */
export interface OperatorApproval {
  readonly turn: string;
  readonly call: string;
  readonly verdict: ApprovalVerdict;
  readonly note: string | null;
  readonly by: string;
}

/** What an operator asks: a verdict on one call of one turn, each as people name them. */
export interface VerdictCommand {
  readonly turn: string;
  readonly call: string;
  readonly verdict: 'applied' | 'not_applied';
  readonly text: string | null;
  readonly by: string;
}

/** The turn `ref` names: the turn with that id, or the one turn whose id starts with it. */
export async function findTurn(operator: OperatorStore, ref: string): Promise<TurnLookup> {
  if (ref === '') return { kind: 'not_found' };
  const candidates = await operator.turnsWithPrefix(ref, 10);
  const exact = candidates.find((turn) => turn.turnId === ref);
  if (exact !== undefined) return { kind: 'found', turn: exact };
  if (candidates.length === 0) return { kind: 'not_found' };
  const [only] = candidates;
  return candidates.length === 1 && only !== undefined ? { kind: 'found', turn: only } : { kind: 'ambiguous', candidates };
}

/** The call `ref` names among a turn's ops: its call id when that is unique in the turn, else `STEP:CALL`. */
export function findCall(ops: readonly OpRecord[], ref: string): CallLookup {
  const byId = ops.filter((op) => op.toolCallId === ref);
  const [only] = byId;
  if (byId.length === 1 && only !== undefined) return { kind: 'found', op: only };
  if (byId.length > 1) return { kind: 'ambiguous', labels: byId.map((op) => ledgerCallLabel(op, ops)) };
  const stepped = /^(\d+):(.+)$/.exec(ref);
  const op = stepped === null ? undefined : ops.find((candidate) => candidate.step === Number(stepped[1]) && candidate.toolCallId === stepped[2]);
  return op === undefined ? { kind: 'not_found' } : { kind: 'found', op };
}

/** Why an operator's turn and call named no one call: in words an operator can act on. */
type NamingRefusal = { readonly kind: 'refused'; readonly reason: 'turn_not_found' | 'turn_ambiguous' | 'call_not_found' | 'call_ambiguous'; readonly message: string };

/** The call `callRef` names in the turn `turnRef` names, with the turn's ledger, or why there is not exactly one. */
async function namedCall(operator: OperatorStore, turnRef: string, callRef: string): Promise<{ readonly kind: 'found'; readonly op: OpRecord; readonly ops: readonly OpRecord[] } | NamingRefusal> {
  const turn = await findTurn(operator, turnRef);
  if (turn.kind === 'not_found') return { kind: 'refused', reason: 'turn_not_found', message: `no turn ${turnRef}` };
  if (turn.kind === 'ambiguous') {
    return { kind: 'refused', reason: 'turn_ambiguous', message: `${turnRef} names several turns (${turn.candidates.map((t) => t.turnId).join(', ')}); give more of the id` };
  }
  const ops = (await operator.turnDetail(turn.turn.turnId))?.ops ?? [];
  const call = findCall(ops, callRef);
  if (call.kind === 'not_found') return { kind: 'refused', reason: 'call_not_found', message: `turn ${turn.turn.turnId} has no call ${callRef}` };
  if (call.kind === 'ambiguous') return { kind: 'refused', reason: 'call_ambiguous', message: `${callRef} occurs in several steps of turn ${turn.turn.turnId}; name one of ${call.labels.join(', ')}` };
  return { kind: 'found', op: call.op, ops };
}

/** Records an operator's verdict on the call and turn `command` names (DESIGN §9.1). */
export async function giveVerdict(operator: OperatorStore, command: VerdictCommand): Promise<VerdictAttempt> {
  const named = await namedCall(operator, command.turn, command.call);
  if (named.kind === 'refused') return named;
  const { op, ops } = named;
  const label = ledgerCallLabel(op, ops);
  const outcome = await operator.resolveCall({ call: { turnId: op.turnId, step: op.step, toolCallId: op.toolCallId }, verdict: command.verdict, text: command.text, by: command.by });
  if (outcome.kind === 'recorded') return { ...outcome, label };
  const state = outcome.op?.state ?? op.state;
  const why = (outcome.op?.verdict ?? null) !== null ? `it already has a verdict (${state})` : `it is ${state}, and only a call awaiting a verdict (MANUAL_RESOLUTION_REQUIRED) may get one`;
  return { kind: 'refused', reason: outcome.reason, message: `call ${label} of turn ${op.turnId} takes no verdict: ${why}` };
}

/**
 * Records an operator's answer to the request for approval of the call and turn `command` names
 * (DESIGN §9.2), found as a verdict's call is; a call that does not wait for approval is refused,
 * saying what became of it.
 */
export async function giveApproval(operator: OperatorStore, command: OperatorApproval): Promise<ApprovalAttempt> {
  const named = await namedCall(operator, command.turn, command.call);
  if (named.kind === 'refused') return named;
  const { op, ops } = named;
  const label = ledgerCallLabel(op, ops);
  const outcome = await operator.answerApproval({ call: { turnId: op.turnId, step: op.step, toolCallId: op.toolCallId }, verdict: command.verdict, by: command.by, note: command.note });
  if (outcome.kind === 'recorded') return { ...outcome, label };
  return { kind: 'refused', reason: outcome.reason, message: `call ${label} of turn ${op.turnId} does not wait for approval: ${becameOf(outcome.op ?? op)}` };
}

/** What became of a call that does not wait for approval: who answered it and when, or the state it is in. */
function becameOf(op: OpRecord): string {
  const decision = op.approval?.decision ?? null;
  if (decision === null) return `it is ${op.state}, and only a call waiting for approval (AWAITING_APPROVAL) in a turn waiting for it may be answered`;
  const when = new Date(decision.at).toISOString();
  if (decision.by === APPROVAL_TIMEOUT) return `nobody answered in time, so it was denied at ${when} (${op.state})`;
  return `it was already ${decision.verdict} by ${decision.by} at ${when} (${op.state})`;
}

/**
 * The turns an operator asked for; without statuses, what needs attention: turns suspended,
 * awaiting resolution or awaiting approval, and replies not yet delivered. Newest first.
 */
export async function turnsToShow(operator: OperatorStore, filter: TurnFilter): Promise<TurnOverview[]> {
  if (filter.statuses !== undefined || filter.replyPending !== undefined) return operator.listTurns(filter);
  const [waiting, undelivered] = await Promise.all([operator.listTurns({ ...filter, statuses: ATTENTION_STATUSES }), operator.listTurns({ ...filter, replyPending: true })]);
  const seen = new Set(waiting.map((overview) => overview.turn.turnId));
  return [...waiting, ...undelivered.filter((overview) => !seen.has(overview.turn.turnId))].sort((a, b) => b.turn.createdAt - a.turn.createdAt);
}
