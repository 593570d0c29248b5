/**
 * The console's turns list (DESIGN §10.2): newest first, filtered by status, channel, requester and
 * age from the page's query string, its rows sent again over server-sent events as turns start,
 * wait, resume and end.
 */
import { shortTurnId } from '../../engine/call_label.js';
import type { TurnFilter, TurnOverview } from '../../turn_state/operator_store.js';
import { TURN_STATUSES, type TurnStatus } from '../../turn_state/turn_types.js';
import { escapeHtml, page, STATUS_WORDS, utcTime, type PageFrame } from './web_pages.js';

/** The turns the list shows at most. */
const LISTED_TURNS = 200;

/** The ages the list offers, as the query names them, and how far back each reaches. */
const AGES: Readonly<Record<string, { readonly label: string; readonly ms: number }>> = {
  '1h': { label: 'the last hour', ms: 3_600_000 },
  '24h': { label: 'the last day', ms: 86_400_000 },
  '7d': { label: 'the last 7 days', ms: 7 * 86_400_000 },
  '30d': { label: 'the last 30 days', ms: 30 * 86_400_000 },
};

/** The list's filters as the query string gave them, for the form to show again, and what was wrong with them. */
export interface TurnQuery {
  readonly status: string;
  readonly channel: string;
  readonly requester: string;
  readonly age: string;
  readonly problems: readonly string[];
}

/**
 * The filters of `params` (`status`, `channel` as `ID` or `source:ID`, `requester`, `age`), and the
 * store filter they make at `now`; a value that is not one the form offers is named in `problems`
 * and ignored.
 */
export function turnQuery(params: URLSearchParams, now: number): { readonly query: TurnQuery; readonly filter: TurnFilter } {
  const value = (name: string): string => (params.get(name) ?? '').trim();
  const problems: string[] = [];
  const [status, channel, requester, age] = [value('status'), value('channel'), value('requester'), value('age')];
  const statuses = TURN_STATUSES.filter((known) => known === status);
  if (status !== '' && statuses.length === 0) problems.push(`There is no status “${status}”: showing every status.`);
  const reach = AGES[age];
  if (age !== '' && reach === undefined) problems.push(`There is no age “${age}”: showing every age.`);
  const at = channel.lastIndexOf(':');
  const filter: TurnFilter = {
    limit: LISTED_TURNS,
    ...(statuses.length === 0 ? {} : { statuses }),
    ...(channel === '' ? {} : at < 0 ? { channelId: channel } : { source: channel.slice(0, at), channelId: channel.slice(at + 1) }),
    ...(requester === '' ? {} : { requesterId: requester }),
    ...(reach === undefined ? {} : { createdSince: now - reach.ms }),
  };
  return { query: { status: statuses.length === 0 ? '' : status, channel, requester, age: reach === undefined ? '' : age, problems }, filter };
}

/** The turns page: the filters' form, then the rows, kept live by the console's script. */
export function turnsPage(turns: readonly TurnOverview[], query: TurnQuery, frame: PageFrame): string {
  const problems = query.problems.map((problem) => `<p role="alert" class="flash refused">${escapeHtml(problem)}</p>`).join('');
  const head = ['Started (UTC)', 'Turn', 'Channel', 'Requester', 'Status', 'Waiting on'].map((name) => `<th scope="col">${name}</th>`).join('');
  const list =
    `<table class="rows"><caption>Newest first, at most ${LISTED_TURNS}. <span id="live-state" role="status" class="muted"></span></caption>` +
    `<thead><tr>${head}</tr></thead><tbody data-live>${turnRows(turns)}</tbody></table>`;
  return page('Turns', `${problems}${filtersForm(query)}${list}`, frame);
}

/** The list's rows, as the page holds them and the live updates send them again. */
export function turnRows(turns: readonly TurnOverview[]): string {
  if (turns.length === 0) return '<tr><td colspan="6">No turns match.</td></tr>';
  return turns
    .map(({ turn, callsAwaitingVerdict, callsAwaitingApproval, reply }) => {
      const waiting = [
        ...(callsAwaitingVerdict > 0 ? [`${callsAwaitingVerdict} awaiting a verdict`] : []),
        ...(callsAwaitingApproval > 0 ? [`${callsAwaitingApproval} awaiting approval`] : []),
        ...(reply === 'pending' ? ['reply not delivered'] : []),
      ].join(', ');
      const cells = [
        escapeHtml(utcTime(turn.createdAt)),
        `<a href="/turns/${encodeURIComponent(turn.turnId)}">${escapeHtml(shortTurnId(turn.turnId))}</a>`,
        `<span class="id">${escapeHtml(`${turn.identity.source}:${turn.identity.channelId}`)}</span>`,
        `<span class="id">${escapeHtml(turn.requesterId)}</span>`,
        escapeHtml(STATUS_WORDS[turn.status]),
        escapeHtml(waiting),
      ];
      return `<tr data-status="${escapeHtml(turn.status)}">${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`;
    })
    .join('');
}

function filtersForm(query: TurnQuery): string {
  const option = (value: string, label: string, chosen: string): string => `<option value="${escapeHtml(value)}"${value === chosen ? ' selected' : ''}>${escapeHtml(label)}</option>`;
  const statuses = [option('', 'any', query.status), ...TURN_STATUSES.map((status: TurnStatus) => option(status, STATUS_WORDS[status], query.status))].join('');
  const ages = [option('', 'any time', query.age), ...Object.entries(AGES).map(([value, { label }]) => option(value, label, query.age))].join('');
  const text = (name: string, label: string, value: string, hint: string): string => `<label>${label} <input name="${name}" value="${escapeHtml(value)}" placeholder="${hint}"></label>`;
  return (
    `<form method="get" action="/" class="filters" role="search" aria-label="Filter the turns">` +
    `<label>Status <select name="status">${statuses}</select></label>` +
    text('channel', 'Channel', query.channel, 'discord:123…') +
    text('requester', 'Requester', query.requester, 'user id') +
    `<label>Started <select name="age">${ages}</select></label><button type="submit">Filter</button></form>`
  );
}
