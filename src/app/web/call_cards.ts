/**
 * One ledger call as the console shows it (DESIGN §10.2): what it was asked to do, its moves as a
 * timeline with times and who, and — while it waits for a person — the forms that answer it, the
 * same answers `holdfast turns resolve|approve|deny` record.
 */
import { ledgerCallLabel } from '../../engine/call_label.js';
import { APPROVAL_TIMEOUT, type OpRecord } from '../../turn_state/ledger_types.js';
import { csrfField, escapeHtml, utcTime } from './web_pages.js';
import type { WebSession } from './web_sessions.js';

/** The most characters of a call's input, result or error a card shows. */
const SHOWN_CHARS = 4_000;

/** One moment of a call: when, what happened, and who made it happen. */
interface Moment {
  readonly at: number;
  readonly what: string;
  readonly by: string;
}

/** A call as a card: `back` is the page its forms return to. */
export function callCard(op: OpRecord, ops: readonly OpRecord[], session: WebSession, back: string): string {
  const label = ledgerCallLabel(op, ops);
  const input = `<pre>${escapeHtml(shortened(JSON.stringify(op.input, null, 2)))}</pre>${op.inputRedacted ? '<p class="muted">Secrets were taken out of this input before it was stored.</p>' : ''}`;
  const outcome = [
    ...(op.result === null ? [] : [`<p>Result:</p><pre>${escapeHtml(shortened(op.result))}</pre>`]),
    ...(op.error === null ? [] : [`<p>Error:</p><pre>${escapeHtml(shortened(op.error))}</pre>`]),
  ].join('');
  const steps = timeline(op)
    .map((moment) => `<li><time>${escapeHtml(utcTime(moment.at))}</time> ${escapeHtml(moment.what)} <span class="muted">— ${escapeHtml(moment.by)}</span></li>`)
    .join('');
  return (
    `<section class="call" aria-label="Call ${escapeHtml(label)}"><h3>${escapeHtml(op.toolName)} <span class="muted">call ${escapeHtml(label)}, step ${op.step}, ${escapeHtml(op.effect)}</span></h3>` +
    `<p>State: <strong>${escapeHtml(op.state)}</strong></p><details><summary>Input</summary>${input}</details>${outcome}` +
    `<ol class="timeline">${steps}</ol>${actions(op, session, back)}</section>`
  );
}

/** The call's moves the ledger dates: proposed, asked for approval and answered, its last move, and an operator's verdict. */
export function timeline(op: OpRecord): Moment[] {
  const moments: Moment[] = [{ at: op.createdAt, what: `proposed by the model at step ${op.step} (PREPARED)`, by: 'the bot' }];
  if (op.approval !== null) {
    moments.push({ at: op.approval.requestedAt, what: `asked for approval, to wait until ${utcTime(op.approval.expiresAt)} UTC (AWAITING_APPROVAL)`, by: 'the bot' });
    const { decision } = op.approval;
    if (decision !== null) {
      const note = decision.note === null ? '' : `: ${decision.note}`;
      const what = decision.by === APPROVAL_TIMEOUT ? 'denied: nobody answered in time' : `${decision.verdict}${note}`;
      moments.push({ at: decision.at, what, by: decision.by === APPROVAL_TIMEOUT ? 'the bot' : decision.by });
    }
  }
  if (op.verdict !== null) {
    const text = op.verdict.text === null ? '' : `: ${op.verdict.text}`;
    moments.push({ at: op.verdict.at, what: `verdict: ${op.state === 'RESOLVED_APPLIED' ? 'it took effect' : 'it did not take effect'}${text} (${op.state})`, by: op.verdict.by });
  } else if (op.state !== 'PREPARED' && !moments.some((moment) => moment.at === op.updatedAt)) {
    moments.push({ at: op.updatedAt, what: `moved to ${op.state}`, by: 'the bot' });
  }
  return moments.sort((a, b) => a.at - b.at);
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
