import { useDiscordServers, type DiscordServers } from '../../support/program_servers.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { answersTo, answerTo, approvalRequest } from '../../support/approval_requests.js';
import { startProgram } from '../../support/background_program.js';
import { screenshot, seriousAxeViolations, useBrowser } from '../../support/browser.js';
import { botMessages, discordConfigYaml, say, shown } from '../../support/discord_bot.js';
import type { FakeDiscord } from '../../support/fake_discord/server.js';
import { chatText, chatToolCalls } from '../../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../../support/fake_llm/server.js';
import { useTempDir } from '../../support/temp_dir.js';
import type { ToolTarget } from '../../support/tool_target.js';

const TOKEN = 'a-console-token-0123456789';
const never = new Promise<void>(() => undefined);

/** The page's globals the functions evaluated in it read (the project's types hold no DOM). */
interface PageNode {
  readonly textContent: string | null;
  readonly innerText: string;
  getAttribute(name: string): string | null;
  querySelector(selector: string): PageNode | null;
  querySelectorAll(selector: string): Iterable<PageNode>;
}
declare const document: PageNode & { readonly body: PageNode };
declare const window: Record<string, unknown>;

/** How the bot's turns run: a `save_note` write whose target may hold it past its timeout (an uncertain write), or that waits for approval first. */
interface BotShape {
  readonly uncertainWrites?: boolean;
  readonly approvals?: boolean;
}

// The real bot on the local Discord, driven from a real browser: generous limits that only catch hangs.
describe('the web console served by the running bot, in a browser, beside the local Discord (DESIGN §10.2)', { timeout: 90_000 }, () => {
  const temp = useTempDir();
  const browser = useBrowser();
  const servers = useDiscordServers();
  let discord: FakeDiscord;
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let track: DiscordServers['track'];
  beforeEach(() => {
    ({ discord, fake, target, track } = servers.current);
  });

  /** Starts the bot on Discord with a SQLite store in the test's directory and the console on a free port; resolves with the console's URL, read from its log. */
  async function startBot(shape: BotShape = {}): Promise<string> {
    const tools = `${shape.approvals === true ? '  approval_defaults: { write: required }\n' : ''}  http:
    - name: save_note
      description: Saves a note.
      method: POST
      url: ${target.url}/notes
      effect: write
${shape.uncertainWrites === true ? '      timeout_seconds: 0.5\n' : ''}      parameters: { type: object, properties: { text: { type: string } }, required: [text] }
turn_state:
  housekeeping_interval_seconds: 3600
  auto_resume: true
web:
  listen: 127.0.0.1:0
  token: \${HOLDFAST_WEB_TOKEN}
`;
    const config = join(temp.path(), 'config.yml');
    writeFileSync(config, discordConfigYaml(discord, fake.baseUrl, tools));
    const bot = track(startProgram(['--config', config], { cwd: temp.path(), env: { PATH: process.env['PATH'], HOLDFAST_WEB_TOKEN: TOKEN } }));
    await bot.logged('connected to Discord');
    await bot.logged('web console at ');
    const url = /web console at (http:\/\/127\.0\.0\.1:\d+)/.exec(bot.stderr())?.[1];
    if (url === undefined) throw new Error(`no console URL in the log:\n${bot.stderr()}`);
    return url;
  }

  /** Types the name `ana` and the token into the login form and presses the button, as an operator does; resolves on the page it leads to. */
  async function logIn(page: Page, url: string): Promise<void> {
    await page.goto(`${url}/login`);
    await page.type('input[name="name"]', 'ana');
    await page.type('input[name="token"]', TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('::-p-aria([name="Log in"][role="button"])')]);
  }

  /** Presses the button a screen reader names `name`, and waits for the page the form leads to. */
  async function press(page: Page, name: string): Promise<void> {
    await Promise.all([page.waitForNavigation(), page.click(`::-p-aria([name="${name}"][role="button"])`)]);
  }

  /** The words of the page's section headed `title` (Conversation, Reply, Tool calls, …), as a reader sees them. */
  function sectionText(page: Page, title: string): Promise<string> {
    return page.evaluate((wanted) => {
      for (const section of document.querySelectorAll('main > section')) if (section.querySelector('h2')?.textContent === wanted) return section.innerText;
      return `(no section ${wanted})`;
    }, title);
  }

  const bodyText = (page: Page): Promise<string> => page.evaluate(() => document.body.innerText);
  const liveRows = (page: Page): Promise<string> => page.evaluate(() => document.querySelector('tbody[data-live]')?.innerText ?? '(no live list)');
  const flash = (page: Page): Promise<string> => page.evaluate(() => document.querySelector('p.flash')?.textContent ?? '(no flash)');

  it('lists a Discord message’s turn live on the open turns page, and shows the turn while it runs and once it completed', async () => {
    const url = await startBot();
    const page = await browser.page();
    await page.goto(`${url}/login`);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'login');

    await logIn(page, url);
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await liveRows(page)).toBe('No turns match.');
    await page.waitForFunction(() => document.querySelector('#live-state')?.textContent === 'Updated live.', { polling: 'mutation' });
    // A mark on the loaded page: gone if anything reloads it.
    await page.evaluate(() => (window['loadedOnce'] = true));

    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const answer = chatText('Milk is a drink.', { usage: { prompt_tokens: 20, completion_tokens: 7 } });
    fake.enqueue({ ...answer, chunks: [held, ...answer.chunks] });
    const { channelId, user } = discord.world;
    const asked = await say(discord, 'what is milk?');

    await page.waitForFunction((requester) => document.querySelector('tbody[data-live]')?.textContent?.includes(requester) === true, { polling: 'mutation' }, user.id);
    expect(await liveRows(page)).toMatch(new RegExp(`discord:${channelId}\\s+${user.id}\\s+running`));
    const turnPath = await page.evaluate(() => document.querySelector('tbody[data-live] a')?.getAttribute('href') ?? '');
    const whileRunning = await browser.page();
    await whileRunning.goto(`${url}${turnPath}`);
    expect(await sectionText(whileRunning, 'Conversation')).toContain('what is milk?');
    await whileRunning.close();

    release();
    expect(await answerTo(discord, channelId, asked)).toBe('Milk is a drink.');
    await page.waitForFunction(() => document.querySelector('tbody[data-live] tr')?.getAttribute('data-status') === 'TERMINAL_COMPLETED', { polling: 'mutation' });
    expect(await liveRows(page)).toMatch(new RegExp(`${user.id}\\s+completed`));
    expect(await page.evaluate(() => window['loadedOnce'])).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'turns');

    await Promise.all([page.waitForNavigation(), page.click('tbody[data-live] a')]);
    expect(new URL(page.url()).pathname).toBe(turnPath);
    const summary = await page.evaluate(() => document.querySelector('main dl')?.innerText ?? '');
    expect(summary).toContain('completed (TERMINAL_COMPLETED)');
    expect(summary).toContain(`discord:${channelId}`);
    expect(summary).toContain(asked);
    // A completed turn keeps no transcript and a delivered reply no text: the page says so, and how the reply went.
    expect(await sectionText(page, 'Conversation')).toContain('The transcript was dropped when the turn ended');
    expect(await sectionText(page, 'Reply')).toMatch(/^Reply\s+delivered: 1 part\(s\) delivered, stored .* UTC, delivered .* UTC$/);
    expect(await sectionText(page, 'Model calls')).toMatch(/test-model\s+20\s+7/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'turn-completed');
  });

  it('shows an uncertain write on the attention page, and a verdict given there by web:ana is told in the channel and lets the turn go on', async () => {
    const url = await startBot({ uncertainWrites: true });
    const { channelId } = discord.world;
    target.reply({ hold: never });
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"open ticket"}' }]));
    const asked = await say(discord, 'Open a ticket');
    const parked = await answerTo(discord, channelId, asked);
    const short = /saved as turn ([0-9a-f]{8})\./.exec(parked)?.[1] ?? '(no turn id in the parking notice)';
    expect(parked).toContain('I cannot tell whether `save_note` (call w1) took effect');

    const page = await browser.page();
    await logIn(page, url);
    await Promise.all([page.waitForNavigation(), page.click('::-p-aria([name="Needs attention"][role="link"])')]);
    expect(new URL(page.url()).pathname).toBe('/attention');
    const listed = await bodyText(page);
    expect(listed).toContain(`Turn ${short} awaits your verdict on what happened`);
    expect(listed).toMatch(/save_note call w1, step 1, write\s+State: MANUAL_RESOLUTION_REQUIRED/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'attention');

    // While it waits, the turn's page shows the conversation so far: the member's words and the call the model proposed.
    const turnPage = await browser.page();
    await turnPage.goto(`${url}/turns/${short}`);
    const conversation = await sectionText(turnPage, 'Conversation');
    expect(conversation).toContain('Open a ticket');
    expect(conversation).toContain('Calls save_note (w1)');
    expect(await seriousAxeViolations(turnPage)).toEqual([]);
    await screenshot(turnPage, 'turn');
    await turnPage.close();

    fake.enqueue(chatText('Your ticket is T-7.'));
    await page.type('::-p-aria([name="The result the model will see (optional)"][role="textbox"])', 'ticket T-7 opened');
    await press(page, 'It took effect: applied');
    expect(new URL(page.url()).pathname).toBe('/attention');
    expect(await flash(page)).toBe(`Recorded by web:ana: call w1 of turn ${short} took effect (RESOLVED_APPLIED). The turn awaits no more verdicts: the bot tells the requester and goes on with it.`);
    expect(await bodyText(page)).toContain('Nothing waits for a person');

    // The notice answers the member's message; the turn then goes on by itself in the channel.
    await shown(discord, 'Your ticket is T-7.');
    expect(botMessages(discord).map((message) => message.content)).toEqual([
      parked,
      `ℹ️ An operator checked your saved request (turn ${short}): \`save_note\` (call w1) took effect: ticket T-7 opened. I am continuing your request now.`,
      'ℹ️ Continuing your saved request.',
      'Your ticket is T-7.',
    ]);
    expect(answersTo(discord, channelId, asked)).toEqual([parked, expect.stringContaining('An operator checked your saved request') as unknown]);
    const lastRequest = fake.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
    expect(lastRequest.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'w1', content: 'ticket T-7 opened' });
    expect(target.requests).toHaveLength(1);

    await page.goto(`${url}/turns/${short}`);
    expect(await page.evaluate(() => document.querySelector('main dl')?.innerText ?? '')).toContain('completed (TERMINAL_COMPLETED)');
    const call = await sectionText(page, 'Tool calls');
    expect(call).toContain('State: RESOLVED_APPLIED');
    expect(call).toMatch(/verdict: it took effect: ticket T-7 opened — web:ana/);
  });

  it('asks for approval of a write on the attention page: a post without the CSRF token is refused, and Approve lets the write run once', async () => {
    const url = await startBot({ approvals: true });
    const { channelId } = discord.world;
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' }]), chatText('I saved the note.'));
    const asked = await say(discord, 'note: buy milk');
    const request = await approvalRequest(discord, channelId);

    const page = await browser.page();
    await logIn(page, url);
    await page.goto(`${url}/attention`);
    const listed = await bodyText(page);
    expect(listed).toMatch(/Turn [0-9a-f]{8} asks before it writes/);
    expect(listed).toMatch(/save_note call w1, step 1, write\s+State: AWAITING_APPROVAL/);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The page's own Approve form, posted without its csrf field: refused, and nothing changes.
    const refused = await page.evaluate(async () => {
      const fields = new URLSearchParams();
      for (const input of document.querySelector('form[action="/calls/approval"]')?.querySelectorAll('input[type="hidden"]') ?? []) {
        const { name, value } = input as unknown as { readonly name: string; readonly value: string };
        if (name !== 'csrf') fields.append(name, value);
      }
      const answer = await fetch('/calls/approval', { method: 'POST', body: fields, redirect: 'manual' });
      return { sent: [...fields.keys()], status: answer.status };
    });
    expect(refused).toEqual({ sent: ['turn', 'call', 'back', 'verdict'], status: 403 });
    await page.reload();
    expect(await bodyText(page)).toContain('State: AWAITING_APPROVAL');
    expect(target.requests).toEqual([]);

    await press(page, 'Approve: let it run');
    expect(await flash(page)).toMatch(/^Recorded by web:ana: call w1 of turn [0-9a-f]{8} approved \(APPROVED\)\. The turn waits for no more approvals: the bot goes on with it in its channel\.$/);
    await shown(discord, 'I saved the note.');
    expect(target.requests.map((r) => r.body)).toEqual(['{"text":"buy milk"}']);
    expect(answersTo(discord, channelId, asked)).toEqual(['I saved the note.']);
    // The request in the channel shows who approved it, and its buttons are gone.
    expect(discord.message(request.id)?.components).toEqual([]);
    expect(discord.message(request.id)?.content).toMatch(/\*\*Approved\*\* by ana \(web console\) at \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/);
  });

  it('shows the health of the bot serving it: its model’s breaker and the tokens spent per day as a chart', async () => {
    const url = await startBot();
    const { channelId } = discord.world;
    fake.enqueue(chatText('Milk is a drink.', { usage: { prompt_tokens: 20, completion_tokens: 7 } }));
    expect(await answerTo(discord, channelId, await say(discord, 'what is milk?'))).toBe('Milk is a drink.');

    const page = await browser.page();
    await logIn(page, url);
    await Promise.all([page.waitForNavigation(), page.click('::-p-aria([name="Health"][role="link"])')]);
    expect(new URL(page.url()).pathname).toBe('/health');
    const breakers = await page.evaluate(() => {
      for (const table of document.querySelectorAll('table')) if (table.querySelector('caption')?.textContent === 'Capacity breakers, one per model') return table.innerText;
      return '(no breakers table)';
    });
    expect(breakers).toMatch(/openai\s+test-model\s+closed\s+0/);
    const chart = await page.evaluate(() => document.querySelector('svg[role="img"] title')?.textContent ?? '(no chart)');
    expect(chart).toBe('Tokens per day over the last 14 days: 27 in all, at most 27 in a day');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'health');
  });
});
