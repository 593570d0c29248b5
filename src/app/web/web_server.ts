import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Clock } from '../../core/clock.js';
import type { IdFactory } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import type { OperatorStore } from '../../turn_state/operator_store.js';
import { listenAt, type HttpListener, type ListenAddress } from '../http_listener.js';
import { CONSOLE_CSS, loginPage, turnsPage } from './web_pages.js';
import { sameSecret, SESSION_TTL_MS, WebSessions, type WebSession } from './web_sessions.js';

/** What the console reads and acts on. */
export interface WebConsoleDeps {
  readonly operator: OperatorStore;
  /** The console's token; none on a loopback address without one. */
  readonly token: string | undefined;
  readonly clock: Clock;
  readonly ids: IdFactory;
  readonly logger: Logger;
}

/** A listening console. */
export type WebConsole = HttpListener;

const COOKIE = 'holdfast_session';
/** The largest form the console reads: a login or an action is a few hundred bytes. */
const MAX_FORM_BYTES = 16_384;
/** The turns the list shows at most. */
const LISTED_TURNS = 200;

/** Every answer's headers: no inline script or style may run, nothing is framed, cached or sniffed. */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
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
  const path = new URL(request.url ?? '/', 'http://console').pathname;
  const route = `${request.method ?? 'GET'} ${path}`;
  const session = sessions.find(cookiesOf(request).get(COOKIE));
  switch (route) {
    case 'GET /static/console.css':
      return send(response, 200, 'text/css; charset=utf-8', CONSOLE_CSS);
    case 'GET /login':
      return session === undefined ? html(response, 200, loginPage(deps.token !== undefined)) : redirect(response, '/');
    case 'POST /login': {
      const form = await formOf(request);
      const login = sessions.login(form.get('token') ?? '', form.get('name') ?? '');
      if (login.kind === 'refused') {
        deps.logger.warn({ component: 'web', why: login.why }, 'a web console login was refused');
        return html(response, 401, loginPage(deps.token !== undefined, login.why));
      }
      deps.logger.info({ component: 'web', by: `web:${login.session.name}` }, `web:${login.session.name} logged in to the web console`);
      return redirect(response, '/', `${COOKIE}=${login.session.id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_MS / 1000}`);
    }
    case 'POST /logout': {
      const acting = await actingSession(request, response, session);
      if (acting === undefined) return;
      sessions.logout(acting.id);
      deps.logger.info({ component: 'web', by: `web:${acting.name}` }, `web:${acting.name} logged out of the web console`);
      return redirect(response, '/login', `${COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`);
    }
    case 'GET /':
      if (session === undefined) return redirect(response, '/login');
      return html(response, 200, turnsPage((await deps.operator.listTurns({})).slice(0, LISTED_TURNS), session));
    default:
      return send(response, 404, 'text/plain; charset=utf-8', 'Not found.\n');
  }
}

/** The session a state-changing request acts for: it must be logged in and carry its CSRF token; otherwise it is answered 403 here. */
async function actingSession(request: IncomingMessage, response: ServerResponse, session: WebSession | undefined): Promise<WebSession | undefined> {
  const form = await formOf(request);
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
