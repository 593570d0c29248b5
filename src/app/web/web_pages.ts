/**
 * The web console's frame, rendered on the server (DESIGN §10.2): every text from the store goes
 * through {@link escapeHtml}, and no page holds an inline script or style, so that the
 * Content-Security-Policy can forbid both. Each page is a function of what it shows.
 */
import type { TurnStatus } from '../../turn_state/turn_types.js';
import { MAX_NAME_LENGTH, type Flash, type LoginRefusal, type WebSession } from './web_sessions.js';

/** `text` with the five characters HTML gives meaning escaped: safe inside an element and a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** An instant as the console shows it: `YYYY-MM-DD HH:MM:SS`, UTC. */
export function utcTime(at: number): string {
  return new Date(at).toISOString().replace('T', ' ').slice(0, 19);
}

/** The console's sections, in the order of its navigation bar. */
const SECTIONS = [
  { path: '/', name: 'Turns' },
  { path: '/attention', name: 'Needs attention' },
  { path: '/health', name: 'Health' },
] as const;

/** The path of the section a page belongs to: its link is marked as the current page. */
export type Section = (typeof SECTIONS)[number]['path'];

/** What frames a page for a logged-in operator: who they are, the section, and a message left by their last action. */
export interface PageFrame {
  readonly session: WebSession;
  readonly section: Section;
  readonly flash?: Flash | undefined;
}

/** A whole page: its title, the operator's bar when logged in (with the logout form carrying the CSRF token), and `body`. */
export function page(title: string, body: string, frame?: PageFrame): string {
  const bar = frame === undefined ? '' : operatorBar(frame);
  const flash = frame?.flash === undefined ? '' : `<p role="${frame.flash.kind === 'done' ? 'status' : 'alert'}" class="flash ${frame.flash.kind}">${escapeHtml(frame.flash.text)}</p>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Holdfast</title>
<link rel="stylesheet" href="/static/console.css"><script src="/static/console.js" defer></script></head>
<body>${bar}<main><h1>${escapeHtml(title)}</h1>
${flash}${body}
</main></body>
</html>
`;
}

function operatorBar({ session, section }: PageFrame): string {
  const links = SECTIONS.map(({ path, name }) => `<a href="${path}"${path === section ? ' aria-current="page"' : ''}>${name}</a>`).join('');
  return (
    `<header><nav aria-label="Console">${links}</nav><form method="post" action="/logout">${csrfField(session)}` +
    `<span>${escapeHtml(session.name)}</span> <button type="submit">Log out</button></form></header>`
  );
}

/** The hidden field every state-changing form carries. */
export function csrfField(session: WebSession): string {
  return `<input type="hidden" name="csrf" value="${escapeHtml(session.csrf)}">`;
}

const REFUSALS: Readonly<Record<LoginRefusal, string>> = {
  bad_token: 'That token is not the console’s.',
  bad_name: 'Give a name of letters, digits, dots, dashes or underscores (at most 64): your actions are recorded under it.',
};

/** The login form; `refused` says why the last try failed. `needsToken`: the console has a token to ask for. */
export function loginPage(needsToken: boolean, refused?: LoginRefusal): string {
  const error = refused === undefined ? '' : `<p role="alert" class="flash refused">${escapeHtml(REFUSALS[refused])}</p>`;
  const token = needsToken ? '<label>Token <input type="password" name="token" autocomplete="current-password" required></label>' : '';
  const name = `<label>Your name <input name="name" autocomplete="username" required maxlength="${MAX_NAME_LENGTH}"></label>`;
  return page('Log in', `${error}<form method="post" action="/login" class="login">${name}${token}<button type="submit">Log in</button></form>`);
}

/** A turn's status in words. */
export const STATUS_WORDS: Readonly<Record<TurnStatus, string>> = {
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

/** A table with a header row; each cell of `rows` is HTML already escaped. */
export function table(caption: string, headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const head = headers.map((name) => `<th scope="col">${escapeHtml(name)}</th>`).join('');
  const body = rows.map((cells) => `<tr>${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('');
  return `<table><caption>${escapeHtml(caption)}</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}
