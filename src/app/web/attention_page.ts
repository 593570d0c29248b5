/**
 * The console's "needs attention" page (DESIGN §10.2): every call that waits for a person — an
 * uncertain call for an operator's verdict, a write for approval — with the forms that answer it.
 */
import { shortTurnId } from '../../engine/call_label.js';
import type { OperatorStore, TurnDetail } from '../../turn_state/operator_store.js';
import type { TurnStatus } from '../../turn_state/turn_types.js';
import { callCard } from './call_cards.js';
import { escapeHtml, page, utcTime, type PageFrame } from './web_pages.js';

/** The turns that wait for a person's answer about one of their calls. */
const WAITING: readonly TurnStatus[] = ['AWAITING_RESOLUTION', 'AWAITING_APPROVAL'];

/** The most turns the page reads: the oldest wait longest, but a page of hundreds helps nobody. */
const SHOWN_TURNS = 100;

/** The turns that wait for a verdict or an approval, oldest first, each whole. */
export async function waitingTurns(operator: OperatorStore): Promise<TurnDetail[]> {
  const turns = (await operator.listTurns({ statuses: WAITING, limit: SHOWN_TURNS })).reverse();
  const details = await Promise.all(turns.map(({ turn }) => operator.turnDetail(turn.turnId)));
  return details.filter((detail): detail is TurnDetail => detail !== undefined);
}

/** The page: one section per waiting turn, holding the cards of the calls that wait. */
export function attentionPage(waiting: readonly TurnDetail[], frame: PageFrame): string {
  if (waiting.length === 0) return page('Needs attention', '<p>Nothing waits for a person: no call awaits a verdict or an approval.</p>', frame);
  const sections = waiting.map((detail) => {
    const { turn, ops } = detail;
    const calls = ops.filter((op) => op.state === 'MANUAL_RESOLUTION_REQUIRED' || op.state === 'AWAITING_APPROVAL');
    const what = turn.status === 'AWAITING_RESOLUTION' ? 'awaits your verdict on what happened' : 'asks before it writes';
    return (
      `<section><h2><a href="/turns/${encodeURIComponent(turn.turnId)}">Turn ${escapeHtml(shortTurnId(turn.turnId))}</a> ${what}</h2>` +
      `<p class="muted">${escapeHtml(`${turn.identity.source}:${turn.identity.channelId}, asked by ${turn.requesterId}, started ${utcTime(turn.createdAt)} UTC`)}</p>` +
      `${calls.map((op) => callCard(op, detail, frame.session, '/attention')).join('')}</section>`
    );
  });
  const intro = '<p>A verdict or an answer given here is recorded under your name as <code>web:</code> and your name, and announced in the channel as one given by <code>holdfast turns</code>.</p>';
  return page('Needs attention', intro + sections.join(''), frame);
}
