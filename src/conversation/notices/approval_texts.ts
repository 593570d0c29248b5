/**
 * What the bot says about approvals before a call (DESIGN §9.2): the request, the answer shown on
 * it once given, and what the one who answered (or tried to) is told. Every other sentence lives
 * in texts.ts beside it.
 */
import { shortTurnId } from '../../engine/call_label.js';
import type { JsonValue } from '../../llm/protocol.js';
import type { AwaitedCall } from '../../engine/turn_outcome.js';
import type { Approvers } from '../../tools/tools_settings.js';
import { APPROVAL_TIMEOUT, type OpRecord } from '../../turn_state/ledger_types.js';

/** The longest string value of a call's arguments a request shows; a longer one is cut, saying how much was left out. */
const SHOWN_VALUE_CHARS = 200;
/** The longest arguments block a request shows. */
const SHOWN_ARGUMENTS_CHARS = 1_200;

/**
 * The request for approval of one call: the tool, its effect class, the turn and the call, its
 * arguments as the ledger keeps them (secrets scrubbed, long values cut) in a code block, who may
 * answer, and until when.
 */
export function approvalRequestText(call: AwaitedCall, approvers: Approvers, timeoutMinutes: number): string {
  const { op, label } = call;
  return (
    `**Approval needed**: \`${op.toolName}\` (${op.effect}) wants to run for request ${shortTurnId(op.turnId)}, call \`${label}\`.\n` +
    `${argumentsBlock(op.input)}\n` +
    `${APPROVER_TEXTS[approvers]} may answer. Unanswered, it is denied after ${minutes(timeoutMinutes)}.`
  );
}

/** The request as it reads once answered: the request, then the answer, who gave it and when. */
export function approvalSettledText(call: AwaitedCall, approvers: Approvers, timeoutMinutes: number): string {
  const decision = call.op.approval?.decision;
  const request = approvalRequestText(call, approvers, timeoutMinutes).split('\n').slice(0, -1).join('\n');
  if (decision === undefined || decision === null) return request;
  const when = new Date(decision.at).toISOString().slice(0, 16).replace('T', ' ');
  if (decision.by === APPROVAL_TIMEOUT) return `${request}\n**Denied**: nobody answered within ${minutes(timeoutMinutes)} (${when} UTC).`;
  const note = decision.note === null || decision.note === '' ? '' : `: ${decision.note}`;
  return `${request}\n**${decision.verdict === 'approved' ? 'Approved' : 'Denied'}** by ${answerer(decision.by)} at ${when} UTC${note}.`;
}

/** What the one who answered is told once the answer is kept. */
export function approvalAnsweredText(op: OpRecord, remaining: number): string {
  const what = op.state === 'APPROVED' ? `Approved: \`${op.toolName}\` runs now` : `Denied: \`${op.toolName}\` will not run, and the model is told why`;
  return remaining === 0 ? `${what}.` : `${what} once the other ${remaining === 1 ? 'request of this step is' : `${remaining} requests of this step are`} answered.`;
}

/** Why an answer was not taken: the call no longer waits — answered (by whom), denied by timeout, or its request is gone. */
export function approvalNotWaitingText(op: OpRecord | undefined): string {
  const decision = op?.approval?.decision;
  if (op === undefined || decision === undefined || decision === null) return 'That request for approval no longer waits for an answer.';
  if (decision.by === APPROVAL_TIMEOUT) return `Nobody answered that request in time, so \`${op.toolName}\` was denied and did not run.`;
  return `That request was already ${decision.verdict} by ${answerer(decision.by)}.`;
}

/** Why a person may not answer a request. */
export function approvalRefusedText(approvers: Approvers, allowHere: boolean): string {
  if (allowHere) return 'Only an admin may always allow a tool in a channel.';
  return `Only ${APPROVER_TEXTS[approvers].toLowerCase()} may answer this request.`;
}

/** Told once in the channel when a request nobody answered was denied by timeout. */
export function approvalTimedOutText(ops: readonly OpRecord[], timeoutMinutes: number): string {
  const tools = [...new Set(ops.map((op) => `\`${op.toolName}\``))].join(', ');
  return `Nobody answered the request to run ${tools} within ${minutes(timeoutMinutes)}, so it was denied; I told the model and go on without it.`;
}

/** Under a request with buttons: a press while the bot was away fails, and works once it is back. */
export const PRESS_AGAIN_TEXT = '-# If Discord says the interaction failed, the bot was away for a moment: press the button again.';

/** How the console's user answers a request: the console has no buttons. */
export function approveHowText(call: string): string {
  return `Answer with \`/approve ${call}\` or \`/deny ${call} [note]\`.`;
}

/** A message of a turn that waits for approval, sent again, or a `resume` of it. */
export function awaitingApprovalAtAdmissionText(turnId: string): string {
  return `This request (${shortTurnId(turnId)}) is waiting for approval of a tool call; it goes on once the call is approved or denied.`;
}

/** What `/approve` or `/deny` says when it names no call that waits here (`named`), or names none while several wait. */
export function whichApprovalText(named: string | undefined, waiting: readonly string[]): string {
  const listed = waiting.map((label) => `\`${label}\``).join(', ');
  if (waiting.length === 0) return named === undefined ? 'No call waits for approval here.' : `No call \`${named}\` waits for approval here, nor does any other.`;
  if (named === undefined) return `Several calls wait for approval here: ${listed}. Name the one you mean.`;
  return `No call \`${named}\` waits for approval here. Waiting: ${listed}.`;
}

/** `/status`'s line for the calls that wait for approval in a channel, and the tools always allowed there. */
export function approvalStatusLines(waiting: readonly AwaitedCall[], allowed: readonly string[]): string[] {
  const lines = waiting.map(({ op, label }) => `Waiting for approval: \`${op.toolName}\` (request ${shortTurnId(op.turnId)}, call \`${label}\`).`);
  if (allowed.length > 0) lines.push(`Always allowed here: ${allowed.map((name) => `\`${name}\``).join(', ')}.`);
  return lines;
}

const APPROVER_TEXTS: Readonly<Record<Approvers, string>> = {
  requester: 'The person who asked',
  admins: 'An admin',
  requester_or_admins: 'The person who asked, or an admin,',
};

/**
 * Who answered, as people read it: an operator at the command line or in the web console by name,
 * a Discord user as a mention (which the bot's messages never let ping), anyone else by their id.
 */
function answerer(by: string): string {
  const [source, ...rest] = by.split(':');
  const id = rest.join(':');
  if (id === '') return by;
  if (source === 'cli') return `${id} (command line)`;
  if (source === 'web') return `${id} (web console)`;
  return source === 'discord' ? `<@${id}>` : id;
}

function minutes(count: number): string {
  return count === 1 ? '1 minute' : `${count} minutes`;
}

/** A call's arguments as a request shows them: indented JSON, long strings cut, the whole bounded, in a code block nothing can close early. */
function argumentsBlock(input: JsonValue): string {
  let text = JSON.stringify(shortened(input), null, 2);
  if (text.length > SHOWN_ARGUMENTS_CHARS) text = `${text.slice(0, SHOWN_ARGUMENTS_CHARS)}\n… (${text.length - SHOWN_ARGUMENTS_CHARS} more characters)`;
  return `\`\`\`json\n${text.replaceAll('```', '`\u200b``')}\n\`\`\``;
}

function shortened(value: JsonValue): JsonValue {
  if (typeof value === 'string') return value.length <= SHOWN_VALUE_CHARS ? value : `${value.slice(0, SHOWN_VALUE_CHARS)}… (${value.length - SHOWN_VALUE_CHARS} more characters)`;
  if (Array.isArray(value)) return value.map(shortened);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shortened(inner)]));
  return value;
}
