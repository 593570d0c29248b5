/**
 * Approval before a call, in the conversation (DESIGN §9.2): a turn parked for approval asks in
 * its channel, one request per call; a person's answer — a button, the console's `/approve` and
 * `/deny`, an admin's slash command — is checked against `tools.approvers` and recorded; the
 * request then shows the answer; once every call of the step is answered the turn goes on in its
 * channel's lane, on whichever process serves the channel.
 */
import { assertNever } from '../../core/assert_never.js';
import { ledgerCallLabel } from '../../engine/call_label.js';
import type { AwaitedCall } from '../../engine/turn_outcome.js';
import { isAdmin } from '../../tools/permissions.js';
import { APPROVAL_TIMEOUT, type OpRecord } from '../../turn_state/ledger_types.js';
import type { TurnRecord } from '../../turn_state/turn_types.js';
import type { ApprovalStore } from '../../turn_state/approval_store.js';
import type { ConversationDeps } from '../conversation_deps.js';
import { approvalAnsweredText, approvalNotWaitingText, approvalRefusedText, approvalRequestText, approvalSettledText, approvalTimedOutText, whichApprovalText } from '../notices/approval_texts.js';
import { TEXTS } from '../notices/texts.js';
import { type Inbound, type InboundMessage, postNotice } from '../transport.js';

/** A person's answer to a request for approval, as a transport hands it over. */
export type ApprovalCommand = Extract<Inbound, { readonly kind: 'approval' }>;

type ApprovalDeps = Pick<ConversationDeps, 'config' | 'store' | 'operator' | 'sink' | 'logger' | 'faults'>;

/**
 * Asks in the channel for each call of a turn that parked for approval, answering its message,
 * and keeps which message asks, so that it can be edited once answered from any process. A
 * request that could not be posted still waits, for `/approve` or its timeout.
 */
export async function askForApprovals(
  message: InboundMessage,
  asking: readonly AwaitedCall[],
  deps: Pick<ApprovalDeps, 'config' | 'sink' | 'logger'> & { readonly store: Pick<ApprovalStore, 'noteApprovalMessage'> },
): Promise<void> {
  const { approvers, approval_timeout_minutes: minutes } = deps.config.tools;
  for (const call of asking) {
    const { op } = call;
    deps.logger.info({ turn: op.turnId, channel: message.channelId, requester: message.authorId, tool: op.toolName, effect: op.effect, call: call.label }, `a ${op.toolName} call waits for approval`);
    try {
      const text = approvalRequestText(call, approvers, minutes);
      const messageId = await deps.sink.askApproval({ channelId: message.channelId, inReplyTo: message.messageId, turn: op.turnId, approvalId: op.idempotencyKey, call: call.label, text });
      if (messageId !== undefined) await deps.store.noteApprovalMessage(op, messageId);
    } catch (error) {
      deps.logger.error({ err: error, turn: op.turnId, call: call.label }, 'a request for approval could not be posted: it waits for /approve, /deny or its timeout');
    }
  }
}

/**
 * Takes a person's answer: the request is found (by its id, or by the call among those waiting in
 * the channel), the person checked against `tools.approvers` (only an admin may always allow a
 * tool), the answer recorded, its request edited to show it, and the person told, to them alone.
 * Once no call of the turn waits any longer, `announce` (which must not throw) makes the turn go
 * on at once. Never throws: a failure is logged and answered.
 */
export async function approvalCommand(command: ApprovalCommand, deps: ApprovalDeps, announce: () => Promise<void>): Promise<void> {
  const { origin } = command;
  const answer = (text: string): void => postNotice(deps.sink, origin, null, 'operator', text);
  if (!deps.store.durable) return answer(TEXTS.storeOff);
  try {
    const found = await requestOf(command, deps);
    if (typeof found === 'string') return answer(found);
    const turn = await deps.store.getTurn(found.turnId);
    if (turn === undefined || found.state !== 'AWAITING_APPROVAL') return answer(approvalNotWaitingText(found));
    const { approvers } = deps.config.tools;
    if (!mayAnswer(turn, origin, command.allowHere, deps)) return answer(approvalRefusedText(approvers, command.allowHere));
    const outcome = await deps.store.answerApproval({
      approvalId: found.idempotencyKey,
      verdict: command.verdict,
      by: `${origin.source}:${origin.authorId}`,
      note: command.note,
      allowHere: command.allowHere,
    });
    if (outcome.kind === 'refused') return answer(approvalNotWaitingText(outcome.op));
    deps.faults.reach('after_approval', outcome.op.step);
    const ops = await deps.store.listOps(turn.turnId);
    settleRequest(turn, outcome.op, ops, deps);
    answer(approvalAnsweredText(outcome.op, outcome.remaining));
    if (outcome.remaining === 0) await announce();
  } catch (error) {
    deps.logger.error({ err: error, user: origin.authorId, channel: origin.channelId }, 'an answer to a request for approval failed');
    answer(TEXTS.commandFailed);
  }
}

/**
 * What the channel is told once every call of a turn's step was answered, before the turn goes
 * on: each request shows its answer (again, where a button already did: an edit is idempotent),
 * and the calls nobody answered in time are said once.
 */
export function tellAnswered(turn: TurnRecord, ops: readonly OpRecord[], deps: Pick<ApprovalDeps, 'config' | 'sink'>): void {
  const asked = lastAsked(ops);
  for (const op of asked) settleRequest(turn, op, ops, deps);
  const timedOut = asked.filter((op) => op.approval?.decision?.by === APPROVAL_TIMEOUT);
  if (timedOut.length === 0) return;
  const { channelId, messageId } = turn.identity;
  deps.sink.post({
    type: 'message',
    channelId,
    inReplyTo: messageId,
    turn: turn.turnId,
    kind: 'notice',
    notice: 'status',
    text: approvalTimedOutText(timedOut, deps.config.tools.approval_timeout_minutes),
  });
}

/** The calls of the turn's newest step that asked for approval: the ones its last round of answers was about. */
export function lastAsked(ops: readonly OpRecord[]): OpRecord[] {
  const step = Math.max(...ops.filter((op) => op.approval !== null).map((op) => op.step));
  return ops.filter((op) => op.approval !== null && op.step === step);
}

/** The calls of a channel's parked turns that wait for approval, as people name them. */
export async function waitingIn(origin: Pick<InboundMessage, 'source' | 'channelId'>, deps: Pick<ApprovalDeps, 'operator' | 'store'>): Promise<AwaitedCall[]> {
  const parked = await deps.operator.listTurns({ statuses: ['AWAITING_APPROVAL'], source: origin.source, channelId: origin.channelId });
  const waiting: AwaitedCall[] = [];
  for (const { turn } of parked) {
    const ops = await deps.store.listOps(turn.turnId);
    for (const op of ops) if (op.state === 'AWAITING_APPROVAL') waiting.push({ op, label: ledgerCallLabel(op, ops) });
  }
  return waiting;
}

/** The request an answer names, or what to answer when it names none. */
async function requestOf(command: ApprovalCommand, deps: ApprovalDeps): Promise<OpRecord | string> {
  const { target } = command;
  if ('approvalId' in target) return (await deps.store.findApproval(target.approvalId)) ?? approvalNotWaitingText(undefined);
  const waiting = await waitingIn(command.origin, deps);
  const named = target.call === undefined ? waiting : waiting.filter(({ op, label }) => label === target.call || op.toolCallId === target.call);
  const [only] = named;
  return only !== undefined && named.length === 1
    ? only.op
    : whichApprovalText(
        target.call,
        waiting.map(({ label }) => label),
      );
}

/** Whether the one who answered may (`tools.approvers`); only an admin may always allow a tool in a channel. */
function mayAnswer(turn: TurnRecord, origin: InboundMessage, allowHere: boolean, deps: Pick<ApprovalDeps, 'config'>): boolean {
  const admin = isAdmin(deps.config.permissions, origin.authorId);
  if (allowHere) return admin;
  const requester = turn.requesterId === origin.authorId && turn.identity.source === origin.source;
  switch (deps.config.tools.approvers) {
    case 'requester':
      return requester;
    case 'admins':
      return admin;
    case 'requester_or_admins':
      return requester || admin;
    default:
      return assertNever(deps.config.tools.approvers);
  }
}

/** Edits the message that asked for `op`'s approval to show the answer, who gave it and when; nothing where no message asked. */
function settleRequest(turn: TurnRecord, op: OpRecord, ops: readonly OpRecord[], deps: Pick<ApprovalDeps, 'config' | 'sink'>): void {
  const messageId = op.approval?.messageId;
  if (messageId === null || messageId === undefined) return;
  const { approvers, approval_timeout_minutes: minutes } = deps.config.tools;
  deps.sink.post({ type: 'approval_settled', channelId: turn.identity.channelId, messageId, text: approvalSettledText({ op, label: ledgerCallLabel(op, ops) }, approvers, minutes) });
}
