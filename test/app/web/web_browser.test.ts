import { pino } from 'pino';
import type { Page } from 'puppeteer-core';
import { afterEach, describe, expect, it } from 'vitest';
import { startWebConsole, type WebConsole } from '../../../src/app/web/web_server.js';
import { screenshot, seriousAxeViolations, useBrowser } from '../../support/browser.js';
import { openTestStoreFile, type TestStoreFile } from '../../support/store_file.js';
import { SequentialIds } from '../../support/sequential_ids.js';
import { useTempDir } from '../../support/temp_dir.js';
import { admissionFor } from '../../support/turn_store.js';

const TOKEN = 'a-console-token-0123456789';

/** The page's globals the functions evaluated in it read (the project's types hold no DOM). */
declare const document: { readonly cookie: string; readonly body: { readonly innerText: string }; readonly documentElement: { readonly scrollWidth: number } };

describe('the web console in a browser', () => {
  const temp = useTempDir();
  const browser = useBrowser();
  let web: WebConsole | undefined;
  let file: TestStoreFile | undefined;
  afterEach(async () => {
    await web?.close();
    await file?.close();
    web = undefined;
  });

  /** The console over a store holding two turns, the newest asked by `requester-42` in the channel `general`. */
  async function start(): Promise<string> {
    file = openTestStoreFile(temp.path());
    await file.turns.admit(admissionFor('m-1', 'random'));
    await file.clock.advance(1_000);
    await file.turns.admit({ ...admissionFor('m-2', 'general'), requesterId: 'requester-42' });
    web = await startWebConsole({ host: '127.0.0.1', port: 0 }, { operator: file.operator, token: TOKEN, clock: file.clock, ids: new SequentialIds('s'), logger: pino({ level: 'silent' }) });
    return web.url;
  }

  /** Fills the login form as an operator would, and waits for the page it leads to. */
  async function logIn(page: Page, url: string): Promise<void> {
    await page.goto(`${url}/login`);
    await page.type('input[name="name"]', 'ana');
    await page.type('input[name="token"]', TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
  }

  it('logs an operator in through the form onto the turns list, both pages passing axe', async () => {
    const url = await start();
    const page = await browser.page();
    await page.goto(`${url}/login`);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'login-over-a-store');

    await logIn(page, url);
    expect(new URL(page.url()).pathname).toBe('/');
    const text = await page.evaluate(() => document.body.innerText);
    expect(text).toContain('requester-42');
    expect(text).toContain('console:general');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'turns-over-a-store');
  });

  it('keeps the session cookie from the page’s scripts and from other sites’ requests', async () => {
    const url = await start();
    const page = await browser.page();
    await logIn(page, url);

    expect(await page.evaluate(() => document.cookie)).not.toContain('holdfast_session');
    const session = (await page.browserContext().cookies()).find((cookie) => cookie.name === 'holdfast_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  });

  it('refuses a logout posted without the CSRF token, and logs out with the button', async () => {
    const url = await start();
    const page = await browser.page();
    await logIn(page, url);

    expect(await page.evaluate(() => fetch('/logout', { method: 'POST', body: new URLSearchParams({}) }).then((response) => response.status))).toBe(403);
    await page.reload();
    expect(new URL(page.url()).pathname).toBe('/');

    await Promise.all([page.waitForNavigation(), page.click('header button[type="submit"]')]);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.goto(`${url}/`);
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('fits the turns list to a phone’s width, with no sideways scroll', async () => {
    const url = await start();
    const page = await browser.page();
    await page.setViewport({ width: 375, height: 667 });
    await logIn(page, url);

    expect(await page.evaluate(() => document.body.innerText)).toContain('requester-42');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  });
});
