/**
 * One ledger call as the console shows it (DESIGN §10.2): what it was asked to do, its moves as a
 * timeline with times and who (§6), and — while it waits for a person — the forms that answer it, the
 * same answers `holdfast turns resolve|approve|deny` record.
 */
import { ledgerCallLabel } from '../../engine/call_label.js';
import { assertNever } from '../../core/assert_never.js';
import { APPROVAL_TIMEOUT, type OpRecord, type OpState } from '../../turn_state/ledger_types.js';
import type { OpMoveRecord, TurnDetail } from '../../turn_state/operator_store.js';
import { csrfField, escapeHtml, utcTime } from './web_pages.js';
import type { WebSession } from './web_sessions.js';

/** The most characters of a call's input, result or error a card shows. */
const SHOWN_CHARS = 4_000;

/** A call as a card: `moves` are its turn's (DESIGN §6), `back` the page its forms return to. */
export function callCard(op: OpRecord, detail: Pick<TurnDetail, 'ops' | 'moves'>, session: WebSession, back: string): string {
  const label = ledgerCallLabel(op, detail.ops);
  const input = `<pre>${escapeHtml(shortened(JSON.stringify(op.input, null, 2)))}</pre>${op.inputRedacted ? '<p class="muted">Secrets were taken out of this input before it was stored.</p>' : ''}`;
  const outcome = [
    ...(op.result === null ? [] : [`<p>Result:</p><pre>${escapeHtml(shortened(op.result))}</pre>`]),
    ...(op.error === null ? [] : [`<p>Error:</p><pre>${escapeHtml(shortened(op.error))}</pre>`]),
  ].join('');
  const moves = detail.moves.filter((move) => move.step === op.step && move.toolCallId === op.toolCallId);
  const steps = moves
    .map((move) => `<li><time>${escapeHtml(utcTime(move.at))}</time> ${escapeHtml(moveWords(op, move.state))} <span class="muted">— ${escapeHtml(mover(op, move))}</span></li>`)
    .join('');
  return (
    `<section class="call" aria-label="Call ${escapeHtml(label)}"><h3>${escapeHtml(op.toolName)} <span class="muted">call ${escapeHtml(label)}, step ${op.step}, ${escapeHtml(op.effect)}</span></h3>` +
    `<p>State: <strong>${escapeHtml(op.state)}</strong></p><details><summary>Input</summary>${input}</details>${outcome}` +
    `<ol class="timeline" aria-label="Moves">${steps}</ol>${actions(op, session, back)}</section>`
  );
}

/** Who made a move: the person who answered or gave the verdict, else the bot. */
function mover(op: OpRecord, move: OpMoveRecord): string {
  if (move.by !== null) return move.by;
  return move.state === 'DENIED' && op.approval?.decision?.by === APPROVAL_TIMEOUT ? 'the bot, when nobody answered in time' : 'the bot';
}

/** A move in words, with what the ledger row adds to it: the approval's deadline and note, the verdict's text. */
function moveWords(op: OpRecord, state: OpState): string {
  const note = (text: string | null | undefined): string => (text === null || text === undefined ? '' : `: ${text}`);
  switch (state) {
    case 'PREPARED':
      return `proposed by the model at step ${op.step}`;
    case 'AWAITING_APPROVAL':
      return `asked for approval${op.approval === null ? '' : `, to wait until ${utcTime(op.approval.expiresAt)} UTC`}`;
    case 'APPROVED':
      return `approved${note(op.approval?.decision?.note)}`;
    case 'DENIED':
      return `denied${note(op.approval?.decision?.note)}`;
    case 'RUNNING':
      return 'started running';
    case 'APPLIED':
      return 'took effect';
    case 'DEFINITELY_FAILED':
      return 'failed, and did not take effect';
    case 'OUTCOME_UNKNOWN':
      return 'cut short: whether it took effect is unknown';
    case 'RECONCILED_APPLIED':
      return 'found to have taken effect';
    case 'RECONCILED_FAILED':
      return 'found not to have taken effect';
    case 'MANUAL_RESOLUTION_REQUIRED':
      return 'left for an operator’s verdict';
    case 'RESOLVED_APPLIED':
      return `verdict: it took effect${note(op.verdict?.text)}`;
    case 'RESOLVED_NOT_APPLIED':
      return `verdict: it did not take effect${note(op.verdict?.text)}`;
    default:
      return assertNever(state);
  }
}

/** The forms a person answers the call with, while it waits for one. */
function actions(op: OpRecord, session: WebSession, back: string): string {
  const fields: [string, string][] = [
    ['turn', op.turnId],
    ['call', `${op.step}:${op.toolCallId}`],
    ['back', back],
  ];
  const hidden = csrfField(session) + fields.map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`).join('');
  const form = (action: string, verdict: string, field: string, label: string, button: string): string =>
    `<form method="post" action="${action}" class="action">${hidden}<input type="hidden" name="verdict" value="${verdict}">` +
    `<label>${label} <textarea name="${field}" rows="2"></textarea></label><button type="submit">${button}</button></form>`;
  if (op.state === 'MANUAL_RESOLUTION_REQUIRED')
    return `<div class="actions">${[
      form('/calls/verdict', 'applied', 'text', 'The result the model will see (optional)', 'It took effect: applied'),
      form('/calls/verdict', 'not_applied', 'text', 'A note (optional)', 'It did not take effect: not applied'),
    ].join('')}</div>`;
  if (op.state === 'AWAITING_APPROVAL')
    return `<div class="actions">${[
      form('/calls/approval', 'approved', 'note', 'A note (optional)', 'Approve: let it run'),
      form('/calls/approval', 'denied', 'note', 'Why (optional)', 'Deny: do not run it'),
    ].join('')}</div>`;
  return '';
}

function shortened(text: string): string {
  return text.length <= SHOWN_CHARS ? text : `${text.slice(0, SHOWN_CHARS)}… (${text.length - SHOWN_CHARS} more characters)`;
}
