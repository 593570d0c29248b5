import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startWebConsole, type WebConsole } from '../../../src/app/web/web_server.js';
import { SESSION_TTL_MS } from '../../../src/app/web/web_sessions.js';
import { openTestStoreFile, type TestStoreFile } from '../../support/store_file.js';
import { SequentialIds } from '../../support/sequential_ids.js';
import { useTempDir } from '../../support/temp_dir.js';
import { admissionFor } from '../../support/turn_store.js';

const TOKEN = 'a-console-token-0123456789';

describe('the web console over HTTP', () => {
  const temp = useTempDir();
  let web: WebConsole | undefined;
  let file: TestStoreFile | undefined;
  afterEach(async () => {
    await web?.close();
    await file?.close();
    web = undefined;
  });

  async function start(token: string | null = TOKEN): Promise<{ url: string; file: TestStoreFile }> {
    file = openTestStoreFile(temp.path());
    web = await startWebConsole(
      { host: '127.0.0.1', port: 0 },
      { operator: file.operator, token: token ?? undefined, clock: file.clock, ids: new SequentialIds('s'), logger: pino({ level: 'silent' }) },
    );
    return { url: web.url, file };
  }

  const post = (url: string, form: Record<string, string>, cookie?: string) =>
    fetch(url, { method: 'POST', redirect: 'manual', body: new URLSearchParams(form), headers: cookie === undefined ? {} : { cookie } });

  /** Logs in as `name` and answers the session cookie. */
  async function loggedIn(url: string, name = 'ana'): Promise<string> {
    const response = await post(`${url}/login`, { name, token: TOKEN });
    expect(response.status).toBe(303);
    return (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  }

  it('sends a visitor to log in, and lets in only the console’s token, as an HttpOnly, SameSite=Strict cookie', async () => {
    const { url } = await start();
    const first = await fetch(`${url}/`, { redirect: 'manual' });
    expect([first.status, first.headers.get('location')]).toEqual([303, '/login']);
    expect(await (await fetch(`${url}/login`)).text()).toContain('name="token"');

    const wrong = await post(`${url}/login`, { name: 'ana', token: 'not-the-token-at-all' });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('That token is not the console’s.');
    expect((await post(`${url}/login`, { name: '<script>', token: TOKEN })).status).toBe(401);

    const right = await post(`${url}/login`, { name: 'ana', token: TOKEN });
    expect(right.headers.get('set-cookie')).toMatch(/^holdfast_session=[^;]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/);
  });

  it('lists the turns newest first with every stored text escaped, under a policy that lets no inline script run', async () => {
    const { url, file } = await start();
    await file.turns.admit(admissionFor('m-1', 'general'));
    await file.clock.advance(1_000);
    await file.turns.admit({ ...admissionFor('m-2', '<img src=x onerror=alert(1)>'), requesterId: '"><script>alert(2)</script>' });
    const cookie = await loggedIn(url);

    const response = await fetch(`${url}/`, { headers: { cookie } });
    const page = await response.text();
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(page.indexOf('&#60;img')).toBeLessThan(page.indexOf('console:general'));
    expect(page).toContain('<span>ana</span>');
  });

  it('refuses a change without the session’s CSRF token, and logs out with it', async () => {
    const { url } = await start();
    const cookie = await loggedIn(url);
    const page = await (await fetch(`${url}/`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';

    expect((await post(`${url}/logout`, {}, cookie)).status).toBe(403);
    expect((await post(`${url}/logout`, { csrf: 'forged' }, cookie)).status).toBe(403);
    expect((await fetch(`${url}/`, { headers: { cookie }, redirect: 'manual' })).status).toBe(200);

    expect((await post(`${url}/logout`, { csrf }, cookie)).status).toBe(303);
    expect((await fetch(`${url}/`, { headers: { cookie }, redirect: 'manual' })).status).toBe(303);
  });

  it('ends a session after twelve hours while a later login goes on, and asks no token on this machine alone when none is set', async () => {
    const { url, file } = await start(null);
    expect(await (await fetch(`${url}/login`)).text()).not.toContain('name="token"');
    const cookie = await loggedIn(url, 'ops');
    const other = await loggedIn(url, 'ana');
    await file.clock.advance(SESSION_TTL_MS - 1);
    expect((await fetch(`${url}/`, { headers: { cookie }, redirect: 'manual' })).status).toBe(200);
    await file.clock.advance(1);
    expect((await fetch(`${url}/`, { headers: { cookie }, redirect: 'manual' })).status).toBe(303);
    const later = await loggedIn(url, 'ops');
    expect((await fetch(`${url}/`, { headers: { cookie: later }, redirect: 'manual' })).status).toBe(200);
    expect((await fetch(`${url}/`, { headers: { cookie: other }, redirect: 'manual' })).status).toBe(303);
  });
});
