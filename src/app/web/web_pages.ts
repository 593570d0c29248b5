/**
 * The web console's pages, rendered on the server (DESIGN §10.2): every text from the store goes
 * through {@link escapeHtml}, and no page holds an inline script or style, so that the
 * Content-Security-Policy can forbid both.
 */
import type { TurnOverview } from '../../turn_state/operator_store.js';
import type { TurnStatus } from '../../turn_state/turn_types.js';
import { MAX_NAME_LENGTH, type LoginRefusal, type WebSession } from './web_sessions.js';

/** `text` with the five characters HTML gives meaning escaped: safe inside an element and a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A whole page: its title, the operator's bar when logged in (with the logout form carrying the CSRF token), and `body`. */
function page(title: string, body: string, session?: WebSession): string {
  const bar =
    session === undefined
      ? ''
      : `<header><nav><a href="/">Turns</a></nav><form method="post" action="/logout"><input type="hidden" name="csrf" value="${escapeHtml(session.csrf)}">` +
        `<span>${escapeHtml(session.name)}</span> <button type="submit">Log out</button></form></header>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Holdfast</title><link rel="stylesheet" href="/static/console.css"></head>
<body>${bar}<main><h1>${escapeHtml(title)}</h1>
${body}
</main></body>
</html>
`;
}

const REFUSALS: Readonly<Record<LoginRefusal, string>> = {
  bad_token: 'That token is not the console’s.',
  bad_name: 'Give a name of letters, digits, dots, dashes or underscores (at most 64): your actions are recorded under it.',
};

/** The login form; `refused` says why the last try failed. `needsToken`: the console has a token to ask for. */
export function loginPage(needsToken: boolean, refused?: LoginRefusal): string {
  const error = refused === undefined ? '' : `<p role="alert" class="error">${escapeHtml(REFUSALS[refused])}</p>`;
  const token = needsToken ? '<label>Token <input type="password" name="token" autocomplete="current-password" required></label>' : '';
  const name = `<label>Your name <input name="name" autocomplete="username" required maxlength="${MAX_NAME_LENGTH}"></label>`;
  return page('Log in', `${error}<form method="post" action="/login" class="login">${name}${token}<button type="submit">Log in</button></form>`);
}

const STATUS_WORDS: Readonly<Record<TurnStatus, string>> = {
  ACTIVE: 'running',
  SUSPENDED: 'saved',
  AWAITING_RESOLUTION: 'awaiting a verdict',
  AWAITING_APPROVAL: 'awaiting approval',
  TERMINAL_COMPLETED: 'completed',
  TERMINAL_FAILED: 'failed',
  TERMINAL_CANCELLED: 'stopped',
  TERMINAL_REJECTED: 'rejected',
  TERMINAL_EXPIRED: 'expired',
};

/** The turns, newest first, one row each: when, where, who, its status and what waits on it. */
export function turnsPage(turns: readonly TurnOverview[], session: WebSession): string {
  if (turns.length === 0) return page('Turns', '<p>No turns yet.</p>', session);
  const rows = turns.map(({ turn, callsAwaitingVerdict, callsAwaitingApproval, reply }) => {
    const waiting = [
      ...(callsAwaitingVerdict > 0 ? [`${callsAwaitingVerdict} awaiting a verdict`] : []),
      ...(callsAwaitingApproval > 0 ? [`${callsAwaitingApproval} awaiting approval`] : []),
      ...(reply === 'pending' ? ['reply not delivered'] : []),
    ].join(', ');
    const cells = [
      new Date(turn.createdAt).toISOString().replace('T', ' ').slice(0, 19),
      turn.turnId.slice(0, 8),
      `${turn.identity.source}:${turn.identity.channelId}`,
      turn.requesterId,
      STATUS_WORDS[turn.status],
      waiting,
    ];
    return `<tr data-status="${escapeHtml(turn.status)}">${cells.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`;
  });
  const head = ['Started (UTC)', 'Turn', 'Channel', 'Requester', 'Status', 'Waiting on'].map((name) => `<th scope="col">${name}</th>`).join('');
  return page('Turns', `<table><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`, session);
}

/** The console's one stylesheet: readable on a phone, no inline style anywhere. */
export const CONSOLE_CSS = `body{font-family:system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fff}
header{display:flex;justify-content:space-between;align-items:center;padding:.5rem 1rem;background:#12355b;color:#fff}
header a{color:#fff}main{padding:1rem;max-width:72rem;margin:auto}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #ccc;vertical-align:top}
.error{color:#a00000}.login label{display:block;margin:.5rem 0}input{font-size:1rem;padding:.3rem}
@media (max-width:40rem){table,thead,tbody,tr,th,td{display:block}thead{display:none}tr{border-bottom:2px solid #999;padding:.3rem 0}td{border:none}}
`;
