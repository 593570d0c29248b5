import { accessSync, constants, mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll } from 'vitest';

/** Where {@link screenshot} writes: `test-output/screenshots/` at the repository's root, ignored by git. */
export const SCREENSHOTS_DIR = fileURLToPath(new URL('../../test-output/screenshots/', import.meta.url));

/** Starting chromium on a busy 2-core machine takes seconds: a hang guard, not a speed target. */
const LAUNCH_TIMEOUT_MS = 60_000;

/** The impacts a page must have none of. */
const BLOCKING_IMPACTS: readonly string[] = ['serious', 'critical'];

/** One accessibility rule a page breaks, as axe-core reports it. */
export interface AxeViolation {
  readonly id: string;
  readonly impact: string;
  readonly help: string;
  /** The CSS selectors of the elements that break it. */
  readonly targets: readonly string[];
}

/**
 * The chromium the tests drive: `HOLDFAST_CHROMIUM` when set, else the first `chromium` on PATH
 * (Debian's, `/usr/bin/chromium`, which `.ci/run` installs when missing).
 * @throws when there is none, naming how to get one.
 */
export function chromiumPath(): string {
  const given = process.env.HOLDFAST_CHROMIUM;
  if (given !== undefined && given !== '') return given;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'chromium');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder: try the next
    }
  }
  throw new Error('no chromium on PATH: install Debian’s (apt-get install chromium) or set HOLDFAST_CHROMIUM to a Chromium or Chrome binary');
}

/**
 * One headless chromium for the tests of the calling file, started before the first and closed
 * after the last; each test's pages share a fresh browser context of their own (no cookie
 * crosses from one test to the next), closed after it. Pages bypass the sites' Content-Security-Policy,
 * so that {@link seriousAxeViolations} can inject axe-core and a test can `fetch` from the page.
 *
 * @example
 * ```ts
 * const browser = useBrowser();
 * it('logs in', async () => {
 *   const page = await browser.page();
 *   await page.goto(`${url}/login`);
 *   expect(await seriousAxeViolations(page)).toEqual([]);
 * });
 * ```
 */
export function useBrowser(): { readonly page: () => Promise<Page> } {
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  beforeAll(async () => {
    browser = await puppeteer.launch({
      executablePath: chromiumPath(),
      headless: true,
      // Chromium refuses to start its sandbox as root, as in a container.
      args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
      timeout: LAUNCH_TIMEOUT_MS,
    });
  }, LAUNCH_TIMEOUT_MS);
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });
  afterAll(async () => {
    await browser?.close();
    browser = undefined;
  });
  const page = async (): Promise<Page> => {
    if (browser === undefined) throw new Error('useBrowser() pages exist only inside a test');
    context ??= await browser.createBrowserContext();
    const opened = await context.newPage();
    await opened.setBypassCSP(true);
    return opened;
  };
  return { page };
}

/**
 * The rules of axe-core's that the page as it stands breaks with a `serious` or `critical` impact:
 * empty for a page a keyboard or screen-reader user can use. The page must come from
 * {@link useBrowser} (its CSP bypassed, as axe is injected as an inline script).
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ content: axe.source });
  const results = await page.evaluate(() => (globalThis as unknown as { axe: typeof axe }).axe.run());
  return results.violations
    .filter((violation) => BLOCKING_IMPACTS.includes(violation.impact ?? ''))
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? '',
      help: violation.help,
      targets: violation.nodes.flatMap((node) => node.target.map(String)),
    }));
}

/** Saves the whole page (beyond the viewport too) as `test-output/screenshots/<name>.png`, for a reader to look at; answers the file's path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  const path = join(SCREENSHOTS_DIR, `${name}.png`) as `${string}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}
