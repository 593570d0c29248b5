import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Clock } from '../../core/clock.js';
import type { IdFactory } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import { findTurn } from '../../conversation/operators/operator_actions.js';
import type { OperatorStore } from '../../turn_state/operator_store.js';
import { listenAt, type HttpListener, type ListenAddress } from '../http_listener.js';
import { attentionPage, waitingTurns } from './attention_page.js';
import { answerCall, webOperatorName, type CallAnswer } from './call_answers.js';
import { CHART_DAYS, healthPage, type LiveRecovery } from './health_page.js';
import { feedTurns } from './turn_feed.js';
import { turnPage } from './turn_page.js';
import { turnQuery, turnRows, turnsPage } from './turns_page.js';
import { CONSOLE_CSS, CONSOLE_JS } from './web_assets.js';
import { escapeHtml, loginPage, page, type PageFrame, type Section } from './web_pages.js';
import { sameSecret, SESSION_TTL_MS, WebSessions, type WebSession } from './web_sessions.js';

/** What the console reads and acts on. */
export interface WebConsoleDeps {
  readonly operator: OperatorStore;
  /** The console's token; none on a loopback address without one. */
  readonly token: string | undefined;
  readonly clock: Clock;
  readonly ids: IdFactory;
  readonly logger: Logger;
  /** The breakers and guard of the bot process serving the console; none when it serves alone. */
  readonly live?: LiveRecovery;
}

/** A listening console. */
export type WebConsole = HttpListener;

const COOKIE = 'holdfast_session';
/** The largest form the console reads: a login is a few hundred bytes, a verdict's result text a few thousand. */
const MAX_FORM_BYTES = 65_536;

/** Every answer's headers: no inline script or style may run, nothing is framed, cached or sniffed. */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/**
 * Serves the operators' web console at `address` (DESIGN §10.2), with node:http: a login that
 * becomes an HttpOnly, SameSite=Strict session cookie, pages rendered on the server, and every
 * state-changing request refused unless it carries the session's CSRF token. Says where it
 * listens in one INFO line.
 * @throws {ListenError} when it cannot listen there.
 */
export async function startWebConsole(address: ListenAddress, deps: WebConsoleDeps): Promise<WebConsole> {
  const sessions = new WebSessions(deps.token, deps.clock, deps.ids);
  const server = createServer((request, response) => {
    answer(request, response, sessions, deps).catch((error: unknown) => {
      deps.logger.error({ err: error, component: 'web', path: request.url }, 'the web console failed to answer a request');
      if (!response.headersSent) send(response, 500, 'text/plain; charset=utf-8', 'The console failed to answer; the log says why.\n');
      else response.end();
    });
  });
  const served = await listenAt(server, address, 'web.listen');
  deps.logger.info({ component: 'web', url: served.url }, `web console at ${served.url}`);
  return served;
}

async function answer(request: IncomingMessage, response: ServerResponse, sessions: WebSessions, deps: WebConsoleDeps): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://console');
  const path = url.pathname;
  const route = `${request.method ?? 'GET'} ${path.startsWith('/turns/') ? '/turns/:id' : path}`;
  const session = sessions.find(cookiesOf(request).get(COOKIE));
  const frame = (section: Section, on: WebSession): PageFrame => ({ session: on, section, flash: sessions.take(on.id) });
  switch (route) {
    case 'GET /static/console.css':
      return send(response, 200, 'text/css; charset=utf-8', CONSOLE_CSS);
    case 'GET /static/console.js':
      return send(response, 200, 'text/javascript; charset=utf-8', CONSOLE_JS);
    case 'GET /login':
      return session === undefined ? html(response, 200, loginPage(deps.token !== undefined)) : redirect(response, '/');
    case 'POST /login': {
      const form = await formOf(request);
      const login = sessions.login(form.get('token') ?? '', form.get('name') ?? '');
      if (login.kind === 'refused') {
        deps.logger.warn({ component: 'web', why: login.why }, 'a web console login was refused');
        return html(response, 401, loginPage(deps.token !== undefined, login.why));
      }
      const by = webOperatorName(login.session);
      deps.logger.info({ component: 'web', by }, `${by} logged in to the web console`);
      return redirect(response, '/', `${COOKIE}=${login.session.id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_MS / 1000}`);
    }
    case 'POST /logout': {
      const acting = await actingSession(request, response, session);
      if (acting === undefined) return;
      sessions.logout(acting.id);
      const by = webOperatorName(acting);
      deps.logger.info({ component: 'web', by }, `${by} logged out of the web console`);
      return redirect(response, '/login', `${COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`);
    }
    case 'POST /calls/verdict':
    case 'POST /calls/approval': {
      const form = await formOf(request);
      const acting = actingFor(form, response, session);
      if (acting === undefined) return;
      const kind: CallAnswer = route === 'POST /calls/verdict' ? 'verdict' : 'approval';
      sessions.leave(acting.id, await answerCall(kind, form, acting, deps.operator, deps.logger));
      return redirect(response, consolePath(form.get('back')));
    }
    default:
      break;
  }
  if (session === undefined) return request.method === 'GET' ? redirect(response, '/login') : notFound(response);
  switch (route) {
    case 'GET /': {
      const { query, filter } = turnQuery(url.searchParams, deps.clock.now());
      return html(response, 200, turnsPage(await deps.operator.listTurns(filter), query, frame('/', session)));
    }
    case 'GET /events': {
      const { filter } = turnQuery(url.searchParams, deps.clock.now());
      response.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', 'X-Accel-Buffering': 'no' });
      const gone = new AbortController();
      response.once('close', () => gone.abort());
      await feedTurns(response, async () => turnRows(await deps.operator.listTurns(filter)), deps.clock, gone.signal);
      return void response.end();
    }
    case 'GET /turns/:id': {
      const ref = decodedSegment(path.slice('/turns/'.length));
      const found = ref === undefined ? ({ kind: 'not_found' } as const) : await findTurn(deps.operator, ref);
      if (found.kind !== 'found') return html(response, 404, page('No such turn', `<p>No single turn has an id starting “${escapeHtml(ref ?? '')}”.</p>`, frame('/', session)));
      if (found.turn.turnId !== ref) return redirect(response, `/turns/${encodeURIComponent(found.turn.turnId)}`);
      const [detail, work] = await Promise.all([deps.operator.turnDetail(ref), deps.operator.turnWork(ref)]);
      if (detail === undefined || work === undefined) return notFound(response);
      return html(response, 200, turnPage(detail, work, frame('/', session)));
    }
    case 'GET /attention':
      return html(response, 200, attentionPage(await waitingTurns(deps.operator), frame('/attention', session)));
    case 'GET /health': {
      const [census, processes, days] = await Promise.all([deps.operator.census(), deps.operator.processes(), deps.operator.usage({ period: { kind: 'days', days: CHART_DAYS }, by: 'day' })]);
      return html(response, 200, healthPage({ now: deps.clock.now(), census, processes, live: deps.live, days }, frame('/health', session)));
    }
    default:
      return notFound(response);
  }
}

/** A path segment decoded, or `undefined` when it is not valid percent-encoding. */
function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    // A malformed escape names no turn.
    return undefined;
  }
}

/** `back` when it is a path of this console, else the turns list: a form never sends a browser elsewhere. */
function consolePath(back: string | null): string {
  return back !== null && back.startsWith('/') && !back.startsWith('//') && !back.includes('\\') ? back : '/';
}

/** The session a state-changing request acts for: it must be logged in and carry its CSRF token; otherwise it is answered 403 here. */
async function actingSession(request: IncomingMessage, response: ServerResponse, session: WebSession | undefined): Promise<WebSession | undefined> {
  return actingFor(await formOf(request), response, session);
}

/** {@link actingSession} for a form already read. */
function actingFor(form: URLSearchParams, response: ServerResponse, session: WebSession | undefined): WebSession | undefined {
  if (session !== undefined && sameSecret(form.get('csrf') ?? '', session.csrf)) return session;
  send(response, 403, 'text/plain; charset=utf-8', 'Refused: log in, and send the form the console gave you (its CSRF token is missing or wrong).\n');
  return undefined;
}

/** A request's cookies by name. */
function cookiesOf(request: IncomingMessage): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) cookies.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return cookies;
}

/** A form posted as `application/x-www-form-urlencoded`, at most {@link MAX_FORM_BYTES}; empty when it is larger or of another type. */
async function formOf(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return new URLSearchParams();
    chunks.push(chunk);
  }
  const type = request.headers['content-type'] ?? '';
  return type.startsWith('application/x-www-form-urlencoded') ? new URLSearchParams(Buffer.concat(chunks).toString('utf8')) : new URLSearchParams();
}

function notFound(response: ServerResponse): void {
  send(response, 404, 'text/plain; charset=utf-8', 'Not found.\n');
}

function html(response: ServerResponse, status: number, body: string): void {
  send(response, status, 'text/html; charset=utf-8', body);
}

function redirect(response: ServerResponse, location: string, cookie?: string): void {
  response.writeHead(303, { ...SECURITY_HEADERS, Location: location, ...(cookie === undefined ? {} : { 'Set-Cookie': cookie }) });
  response.end();
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type });
  response.end(body);
}
