import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveRecovery } from '../../../src/app/web/health_page.js';
import { startWebConsole, type WebConsole } from '../../../src/app/web/web_server.js';
import { ManualClock } from '../../support/manual_clock.js';
import { approvalTurn, parkedTurn, storeIn, turnWithCalls } from '../../support/operator_cli.js';
import { SequentialIds } from '../../support/sequential_ids.js';
import { useTempDir } from '../../support/temp_dir.js';
import { admissionFor } from '../../support/turn_store.js';

const TOKEN = 'a-console-token-0123456789';
const HOUR = 3_600_000;

describe('the web console’s pages over HTTP', () => {
  const temp = useTempDir();
  let web: WebConsole | undefined;
  let store: ReturnType<typeof storeIn> | undefined;
  afterEach(async () => {
    await web?.close();
    await store?.close();
    web = undefined;
  });

  async function start(live?: LiveRecovery): Promise<{ url: string; store: ReturnType<typeof storeIn>; clock: ManualClock; cookie: string; csrf: string }> {
    const clock = new ManualClock();
    store = storeIn(temp.path(), clock);
    web = await startWebConsole(
      { host: '127.0.0.1', port: 0 },
      { operator: store.operator, token: TOKEN, clock, ids: new SequentialIds('s'), logger: pino({ level: 'silent' }), ...(live === undefined ? {} : { live }) },
    );
    const login = await post(`${web.url}/login`, { name: 'ana', token: TOKEN });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const page = await (await fetch(`${web.url}/`, { headers: { cookie } })).text();
    return { url: web.url, store, clock, cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '' };
  }

  const post = (url: string, form: Record<string, string>, cookie?: string) =>
    fetch(url, { method: 'POST', redirect: 'manual', body: new URLSearchParams(form), headers: cookie === undefined ? {} : { cookie } });
  const get = async (url: string, cookie: string) => (await fetch(url, { headers: { cookie } })).text();
  const rowsOf = (page: string) =>
    [...page.matchAll(/<tr data-status="[^"]+">(.*?)<\/tr>/g)].map((row) => [...(row[1] ?? '').matchAll(/<td>(.*?)<\/td>/g)].map((cell) => cell[1]?.replace(/<[^>]+>/g, '')));

  it('filters the turns by status, channel, requester and age, and names a filter it does not know', async () => {
    const { url, store, clock, cookie } = await start();
    await store.turns.admit(admissionFor('m-old', 'general'));
    await clock.advance(2 * HOUR);
    await store.turns.admit({ ...admissionFor('m-new', 'random'), requesterId: 'user-2' });
    await parkedTurn(store.turns, 'm-parked', [{ id: 'w1' }], 'general');

    const requesters = async (query: string) => rowsOf(await get(`${url}/?${query}`, cookie)).map((cells) => `${cells[2]} ${cells[3]} ${cells[4]}`);
    expect(await requesters('')).toEqual(['console:general user-1 awaiting a verdict', 'console:random user-2 running', 'console:general user-1 running']);
    expect(await requesters('status=AWAITING_RESOLUTION')).toEqual(['console:general user-1 awaiting a verdict']);
    expect(await requesters('channel=console:random')).toEqual(['console:random user-2 running']);
    expect(await requesters('channel=general')).toHaveLength(2);
    expect(await requesters('requester=user-2')).toEqual(['console:random user-2 running']);
    expect(await requesters('age=1h')).toHaveLength(2);

    const refused = await get(`${url}/?status=LOST&age=forever`, cookie);
    expect(refused).toContain('There is no status “LOST”: showing every status.');
    expect(refused).toContain('There is no age “forever”: showing every age.');
    expect(rowsOf(refused)).toHaveLength(3);
    expect(await get(`${url}/?requester=nobody`, cookie)).toContain('No turns match.');
  });

  it('sends the list again over server-sent events when a turn starts or changes, and only then', async () => {
    const { url, store, clock, cookie } = await start();
    await store.turns.admit(admissionFor('m-1', 'general'));
    const stop = new AbortController();
    const response = await fetch(`${url}/events?channel=console:general`, { headers: { cookie }, signal: stop.signal });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error('the feed has no body');
    const decoder = new TextDecoder();
    let received = '';
    const nextEvent = async (): Promise<string> => {
      for (;;) {
        const end = received.indexOf('\n\n', received.indexOf('event: turns'));
        if (received.includes('event: turns') && end >= 0) {
          const event = received.slice(received.indexOf('event: turns'), end);
          received = received.slice(end + 2);
          return event;
        }
        const chunk = await reader.read();
        if (chunk.done) throw new Error('the feed ended');
        received += decoder.decode(chunk.value as Uint8Array, { stream: true });
      }
    };

    expect(await nextEvent()).toMatch(/^event: turns\ndata: <tr data-status="ACTIVE">.*user-1/);
    await store.turns.admit({ ...admissionFor('m-2', 'random'), requesterId: 'elsewhere' });
    await store.turns.admit({ ...admissionFor('m-3', 'general'), requesterId: 'user-3' });
    await clock.advance(1_000);
    const second = await nextEvent();
    expect(second).toContain('user-3');
    expect(second).not.toContain('elsewhere');
    expect(received).not.toContain('event: turns');
    stop.abort();
  });

  it('shows one turn whole: its conversation with calls folded, each call’s timeline, its model calls with tokens and cost, and its checkpoints', async () => {
    const { url, store, clock, cookie } = await start();
    const lease = await turnWithCalls(store.turns, 'm-1', [{ id: 'w1', input: { text: '<b>buy milk</b>' } }]);
    await clock.advance(1_000);
    await store.turns.moveOp(lease, { turnId: lease.turnId, step: 1, toolCallId: 'w1' }, { to: 'RUNNING' });
    await store.turns.moveOp(lease, { turnId: lease.turnId, step: 1, toolCallId: 'w1' }, { to: 'APPLIED', result: 'saved note 7' });
    await store.turns.checkpoint(lease, {
      append: [{ role: 'tool', content: [{ type: 'tool_result', toolUseId: 'w1', content: 'saved note 7', isError: false }] }],
      state: { step: 2 },
      progressed: true,
    });
    const identity = { source: 'console', channelId: 'channel-1', messageId: 'm-1' };
    await store.usage.admit({ identity, owner: { source: 'console', userId: 'user-1', channelId: 'channel-1' }, limits: [] });
    await store.usage.record(identity, 'user-1', [
      { model: 'big', inputTokens: 100, outputTokens: 10, cost: 0.5 },
      { model: 'small', inputTokens: null, outputTokens: null, cost: null },
    ]);

    const redirected = await fetch(`${url}/turns/${lease.turnId.slice(0, 8)}`, { headers: { cookie }, redirect: 'manual' });
    expect(redirected.headers.get('location')).toBe(`/turns/${lease.turnId}`);
    const page = await get(`${url}/turns/${lease.turnId}`, cookie);
    expect(page).toContain('<pre>hello</pre>');
    expect(page).toContain('<details><summary>Calls save_note (w1)</summary>');
    expect(page).toContain('&#60;b&#62;buy milk&#60;/b&#62;');
    expect(page).not.toContain('<b>buy milk');
    expect(page).toContain('<details><summary>Result of w1</summary><pre>saved note 7</pre></details>');
    const moves = [...page.matchAll(/<li><time>([^<]+)<\/time> ([^<]+) <span class="muted">— ([^<]+)<\/span><\/li>/g)].map((move) => `${move[1]} ${move[2]} — ${move[3]}`);
    expect(moves).toEqual(['2026-01-01 00:00:00 proposed by the model at step 1 — the bot', '2026-01-01 00:00:01 started running — the bot', '2026-01-01 00:00:01 took effect — the bot']);
    expect(page).toContain('<td>big</td><td>100</td><td>10</td><td>$0.5000</td>');
    expect(page).toContain('<td>small</td><td>not reported</td><td>not reported</td><td>not priced</td>');
    expect(page).toContain('In all: 110 tokens, $0.5000.');
    expect(page).toMatch(/<td>\d+<\/td><td>[\d-]+ [\d:]+<\/td><td>3<\/td>/);

    await store.turns.complete(lease, 'done');
    const ended = await get(`${url}/turns/${lease.turnId}`, cookie);
    expect(ended).toContain('The transcript was dropped when the turn ended');
    expect(ended).toContain('pending: 0 part(s) delivered');
    expect((await fetch(`${url}/turns/nothing-like-it`, { headers: { cookie } })).status).toBe(404);
    const malformed = await fetch(`${url}/turns/%E0%A4%A`, { headers: { cookie } });
    expect([malformed.status, await malformed.text()]).toEqual([404, expect.stringContaining('No single turn has an id starting') as string]);
  });

  it('records a verdict given on the attention page as web:<name>, through the same path as the command line, only with the CSRF token', async () => {
    const { url, store, cookie, csrf } = await start();
    const turnId = await parkedTurn(store.turns, 'm-1', [{ id: 'w1' }]);
    const waiting = await get(`${url}/attention`, cookie);
    expect(waiting).toContain('awaits your verdict on what happened');
    expect(waiting).toContain('It took effect: applied');
    const form = { turn: turnId, call: '1:w1', verdict: 'applied', text: 'ticket T-7', back: '/attention' };

    expect((await post(`${url}/calls/verdict`, form, cookie)).status).toBe(403);
    expect((await post(`${url}/calls/verdict`, { ...form, csrf: 'forged' }, cookie)).status).toBe(403);
    expect((await store.operator.turnDetail(turnId))?.ops[0]?.state).toBe('MANUAL_RESOLUTION_REQUIRED');

    const done = await post(`${url}/calls/verdict`, { ...form, csrf }, cookie);
    expect([done.status, done.headers.get('location')]).toEqual([303, '/attention']);
    const op = (await store.operator.turnDetail(turnId))?.ops[0];
    expect([op?.state, op?.verdict?.by, op?.verdict?.text]).toEqual(['RESOLVED_APPLIED', 'web:ana', 'ticket T-7']);
    expect((await store.operator.turnDetail(turnId))?.turn.resolutionUntold).toBe(true);
    const after = await get(`${url}/attention`, cookie);
    expect(after).toContain('Recorded by web:ana: call w1 of turn 00000001 took effect (RESOLVED_APPLIED). The turn awaits no more verdicts');
    expect(after).toContain('Nothing waits for a person');
    expect(await get(`${url}/attention`, cookie)).not.toContain('Recorded by');

    const again = await post(`${url}/calls/verdict`, { ...form, csrf, back: '//elsewhere.example/' }, cookie);
    expect(again.headers.get('location')).toBe('/');
    expect(await get(`${url}/`, cookie)).toContain(`Refused: call w1 of turn ${turnId} takes no verdict: it already has a verdict (RESOLVED_APPLIED).`);
  });

  it('records an answer to a request for approval as web:<name>, and refuses an answer the form does not offer', async () => {
    const { url, store, cookie, csrf } = await start();
    const turnId = await approvalTurn(store.turns, 'm-1', [{ id: 'w1' }]);
    expect(await get(`${url}/attention`, cookie)).toContain('Approve: let it run');
    await post(`${url}/calls/approval`, { turn: turnId, call: '1:w1', verdict: 'maybe', csrf, back: `/turns/${turnId}` }, cookie);
    expect(await get(`${url}/turns/${turnId}`, cookie)).toContain('An answer is approved or denied, not “maybe”.');

    await post(`${url}/calls/approval`, { turn: turnId, call: '1:w1', verdict: 'approved', note: 'go ahead', csrf, back: `/turns/${turnId}` }, cookie);
    const op = (await store.operator.turnDetail(turnId))?.ops[0];
    expect([op?.state, op?.approval?.decision?.by, op?.approval?.decision?.note]).toEqual(['APPROVED', 'web:ana', 'go ahead']);
    const page = await get(`${url}/turns/${turnId}`, cookie);
    expect(page).toContain('Recorded by web:ana: call w1 of turn 00000001 approved (APPROVED). The turn waits for no more approvals');
    expect(page).toMatch(/asked for approval, to wait until [^<]+ UTC <span class="muted">— the bot<\/span><\/li><li><time>[^<]+<\/time> approved: go ahead <span class="muted">— web:ana/);
  });

  it('shows health: the store’s counts, tokens per day as a chart, and the serving bot’s breakers and guard', async () => {
    const live: LiveRecovery = {
      breakers: {
        modelSnapshots: () => [
          { provider: 'openai', model: 'gpt-test', snapshot: { key: 'openai:gpt-test', state: 'open', cooldownMs: 1000, nextProbeAtMs: 5, probeInFlight: false, failedGenerations: 3 } },
        ],
      },
      guard: { snapshots: () => [{ name: 'llm:openai', status: 'degraded', consecutiveFailures: 2 }] },
    };
    const { url, store, cookie } = await start(live);
    await parkedTurn(store.turns, 'm-1', [{ id: 'w1' }]);
    const identity = { source: 'console', channelId: 'channel-1', messageId: 'm-1' };
    await store.usage.admit({ identity, owner: { source: 'console', userId: 'user-1', channelId: 'channel-1' }, limits: [] });
    await store.usage.record(identity, 'user-1', [{ model: 'big', inputTokens: 100, outputTokens: 10, cost: null }]);

    const page = await get(`${url}/health`, cookie);
    expect(page).toContain('<td>Calls awaiting a verdict</td><td>1</td>');
    expect(page).toContain('Tokens per day over the last 14 days: 110 in all, at most 110 in a day');
    expect(page.match(/<rect /g)).toHaveLength(14);
    expect(page).toContain('<td>openai</td><td>gpt-test</td><td>open</td><td>3</td>');
    expect(page).toContain('<td>llm:openai</td><td>degraded</td><td>2</td>');
    expect(page).toContain('a SQLite store is used by one bot process at a time, and the bot serving this page is the one.');
    await web?.close();
    web = await startWebConsole(
      { host: '127.0.0.1', port: 0 },
      { operator: store.operator, token: undefined, clock: new ManualClock(), ids: new SequentialIds('t'), logger: pino({ level: 'silent' }) },
    );
    const login = await post(`${web.url}/login`, { name: 'ops' });
    const alone = await get(`${web.url}/health`, (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '');
    expect(alone).toContain('Breakers and the subsystem guard live in each bot process');
  });
});
