import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../support/fake_llm/server.js';
import { McpTarget } from '../support/mcp_target.js';
import { isNotice, isReply, runProgram, startJsonLinesProgram, type JsonLinesProgram } from '../support/program.js';
import { noteToolSection, useProgramServers } from '../support/program_servers.js';
import { storeFileIn } from '../support/store_file.js';
import { useTempDir } from '../support/temp_dir.js';
import type { ToolTarget } from '../support/tool_target.js';

/** A model key of no recognisable shape, configured from the environment: only its value can give it away. */
const KEY = 'opaque-model-key-4f9a2c71e0';
const ENV = { PATH: process.env['PATH'], MODEL_KEY: KEY };
const never = new Promise<void>(() => undefined);

/** A JSON object nested `depth` levels deep. */
const deepObject = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

interface SentRequest {
  readonly messages: { readonly role: string; readonly tool_call_id?: string; readonly content: unknown }[];
}

// Real processes: generous limits that only catch hangs.
describe('the built program against hostile input (DESIGN §9.3)', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  const servers = useProgramServers();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let mcp: McpTarget | undefined;
  beforeEach(() => {
    ({ fake, target } = servers.current);
  });
  afterEach(async () => {
    await mcp?.close();
    mcp = undefined;
  });

  const sent = (index: number): SentRequest => fake.requests[index]?.body as SentRequest;
  const errorLines = (bot: JsonLinesProgram): string[] =>
    bot
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"level":50'));

  /** The program in `dir` with the model key configured as a secret, `save_note` (a write) and `lookup` (a read), and `extra` sections. */
  function start(extra = '', dir = temp.path()): JsonLinesProgram {
    const config = temp.write(
      'config.yml',
      `llm:
  base_url: ${fake.baseUrl}
  model: test-model
  api_key: \${MODEL_KEY}
logging:
  level: info
  format: json
turn_state:
  continue_after_restart: false
${noteToolSection(target.url)}    - name: lookup
      description: Looks a word up.
      url: ${target.url}/lookup/{word}
      effect: read
      parameters: { type: object, properties: { word: { type: string } }, required: [word] }
${extra}`,
    );
    return servers.current.track(startJsonLinesProgram(['--config', config], { cwd: dir, env: ENV }));
  }

  /** The ledger as the store file holds it: each call's tool and state. */
  function storedCalls(): [string, string][] {
    const db = new BetterSqlite3(storeFileIn(temp.path()), { readonly: true });
    try {
      return (db.prepare('SELECT tool_name, state FROM ops ORDER BY created_at').all() as { tool_name: string; state: string }[]).map((row) => [row.tool_name, row.state]);
    } finally {
      db.close();
    }
  }

  it('answers tool arguments nested 10,000 levels deep as a call error the model reads, and the turn goes on to its reply', async () => {
    fake.enqueue(chatToolCalls([{ id: 'd1', name: 'save_note', args: deepObject(10_000) }]), chatText('Those arguments were too deep; I will ask differently.'));
    const bot = start();
    await bot.waitFor((event) => event['type'] === 'ready');
    bot.send('Save my note.');

    expect(await bot.waitFor(isReply, 'the reply after the refused call')).toMatchObject({ text: 'Those arguments were too deep; I will ask differently.' });
    expect(sent(1).messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'd1', content: 'Error: not run: the arguments nest deeper than 100 levels' });
    expect(target.requests).toEqual([]);
    expect(storedCalls()).toEqual([['save_note', 'DEFINITELY_FAILED']]);
    expect(errorLines(bot)).toEqual([]);
  });

  it('keeps a read’s and a write’s answers nested 10,000 levels deep whole, settles both calls, and doctor finds nothing wrong', async () => {
    target.reply({ status: 200, body: deepObject(10_000) }, { status: 201, body: deepObject(10_000) });
    fake.enqueue(
      chatToolCalls([{ id: 'r1', name: 'lookup', args: '{"word":"milk"}' }]),
      chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' }]),
      chatText('Looked up and saved.'),
    );
    const bot = start();
    await bot.waitFor((event) => event['type'] === 'ready');
    bot.send('Look milk up, then save a note.');

    expect(await bot.waitFor(isReply, 'the reply after both calls')).toMatchObject({ text: 'Looked up and saved.' });
    expect(sent(1).messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'r1', content: deepObject(10_000) });
    expect(sent(2).messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'w1', content: deepObject(10_000) });
    expect(target.requests).toHaveLength(2);
    bot.endInput();
    expect(await bot.exited).toBe(0);
    expect(errorLines(bot)).toEqual([]);
    expect(storedCalls()).toEqual([
      ['lookup', 'APPLIED'],
      ['save_note', 'APPLIED'],
    ]);
    const doctor = await runProgram(['doctor', '--config', join(temp.path(), 'config.yml')], { cwd: temp.path(), env: ENV });
    expect(doctor.stdout.split('\n').filter((line) => line.startsWith('problem:') || line === 'healthy')).toEqual(['healthy']);
    expect(doctor.status).toBe(0);
  });

  it('answers `resume` and `/resume <id>` of a request that waits for an operator’s verdict with the call it waits on, asking the model nothing', async () => {
    target.reply({ hold: never });
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"open ticket"}' }]));
    const first = start();
    await first.waitFor((event) => event['type'] === 'ready');
    target.onRequest = () => first.kill('SIGKILL');
    first.send('Open a ticket');
    await first.exited;
    target.onRequest = undefined;

    const again = start();
    await again.waitFor(isNotice('interrupted'), 'the notice that the turn was interrupted');
    again.send('resume');
    const parked = await again.waitFor(isNotice('manual_resolution'), 'the turn parked for a verdict');
    const short = String(parked['turn']).slice(0, 8);
    fake.enqueue(chatText('Hello.'));
    again.send('hello');
    await again.waitFor(isReply, 'the answer to a later message');
    const asked = fake.requests.length;

    again.send('resume');
    again.send(`/resume ${short}`);
    await again.waitFor((event) => again.events.filter(isNotice('manual_resolution')).length === 3 && event['type'] === 'message', 'two more answers about the parked request');

    const waiting =
      `Your request (turn ${short}) is waiting for an operator to check whether \`save_note\` (call w1) took effect. ` + `I will tell you here once that is done; then \`resume\` continues it.`;
    expect(
      again.events
        .filter(isNotice('manual_resolution'))
        .slice(1)
        .map((event) => event['text']),
    ).toEqual([waiting, waiting]);
    expect(fake.requests).toHaveLength(asked);
    expect(target.requests).toHaveLength(1);
  });

  it('never posts a configured secret that a tool’s answer carries and the model repeats, while the store keeps it redacted too', async () => {
    target.reply({ status: 200, body: `{"word":"milk","debug":"sent with key ${KEY}"}` });
    fake.enqueue(chatToolCalls([{ id: 'r1', name: 'lookup', args: '{"word":"milk"}' }]), chatText(`The lookup used the key ${KEY}, and milk is a drink.`));
    const bot = start();
    await bot.waitFor((event) => event['type'] === 'ready');
    bot.send('What is milk?');

    expect(await bot.waitFor(isReply, 'the reply')).toMatchObject({ text: 'The lookup used the key [REDACTED], and milk is a drink.' });
    bot.endInput();
    expect(await bot.exited).toBe(0);
    expect(JSON.stringify(bot.events)).not.toContain(KEY);
    expect(bot.stderr()).not.toContain(KEY);
    const db = new BetterSqlite3(storeFileIn(temp.path()), { readonly: true });
    expect(db.prepare('SELECT text FROM history_entries ORDER BY id').all()).toEqual([{ text: 'What is milk?' }, { text: 'The lookup used the key [REDACTED], and milk is a drink.' }]);
    db.close();
  });

  it('gives the model at most 64 KiB of a 9 MiB MCP result, cut with a note it reads, and logs the whole size', async () => {
    mcp = await McpTarget.start();
    const huge = 'milk '.repeat((9 * 1024 * 1024) / 5);
    mcp.answer({ result: { content: [{ type: 'text', text: huge }] } });
    fake.enqueue(chatToolCalls([{ id: 'm1', name: 'target__reader', args: '{"text":"everything"}' }]), chatText('That was a lot of milk.'));
    const bot = start(`  mcp:\n    - name: target\n      url: ${mcp.url}\n`);
    await bot.waitFor((event) => event['type'] === 'ready');
    bot.send('Read everything.');

    expect(await bot.waitFor(isReply, 'the reply')).toMatchObject({ text: 'That was a lot of milk.' });
    const result = sent(1).messages.at(-1);
    expect(result).toMatchObject({ role: 'tool', tool_call_id: 'm1' });
    const content = String(result?.content);
    expect(content.endsWith(`\n[truncated: the result was cut at 65536 bytes; ${huge.length - 65_536} more bytes were left out]`)).toBe(true);
    expect(Buffer.byteLength(content)).toBeLessThan(65_536 + 100);
    await bot.logged('"msg":"the answer of target__reader was cut to max_result_bytes"');
    const cut =
      bot
        .stderr()
        .split('\n')
        .find((line) => line.includes('was cut to max_result_bytes')) ?? '{}';
    expect(JSON.parse(cut)).toMatchObject({ tool: 'target__reader', bytes: huge.length, limit: 65_536 });
  });
});
