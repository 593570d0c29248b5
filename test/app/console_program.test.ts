import { existsSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer, sse } from '../support/fake_llm/server.js';
import { isReply, WAIT_DEADLINE_MS, startJsonLinesProgram, type JsonLinesProgram } from '../support/program.js';
import { lookupToolItem } from '../support/program_servers.js';
import { useTempDir } from '../support/temp_dir.js';
import { ToolTarget } from '../support/tool_target.js';
import { damageTreeOf, openTestStoreFile } from '../support/store_file.js';

const turnStatus = (status: string) => (event: Record<string, unknown>) => event['type'] === 'turn' && event['status'] === status;

// Real processes and long matrices: generous limits that only catch hangs.
describe('the bot in the terminal, as a child process speaking JSON lines', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let program: JsonLinesProgram | undefined;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
    target = await ToolTarget.start();
  });
  afterEach(async () => {
    program?.kill('SIGKILL');
    await program?.exited;
    program = undefined;
    await fake.close();
    await target.close();
  });

  function configFile(extra = ''): string {
    return temp.write(
      'config.yml',
      `llm:
  provider: openai
  base_url: ${fake.baseUrl}
  model: test-model
logging:
  level: warn
tools:
  builtin: []
  http:
${lookupToolItem(target.url)}${extra}`,
    );
  }

  function start(config: string): JsonLinesProgram {
    program = startJsonLinesProgram(['--config', config], { cwd: temp.path() });
    return program;
  }

  it('fails a wait that never ends at its own deadline, naming what it awaited and quoting the output so far', async () => {
    fake.enqueue({ kind: 'stream', chunks: [sse({ choices: [{ index: 0, delta: { content: 'Thinking' } }] })], then: 'stall' });
    program = startJsonLinesProgram(['--config', configFile()], { cwd: temp.path(), deadlineMs: 1_500 });
    const bot = program;
    // Starting may take longer than the short deadline on a busy machine: this wait gets the usual one.
    await bot.waitFor((e) => e['type'] === 'ready', 'the ready event', WAIT_DEADLINE_MS);
    bot.send('what is milk?');
    await fake.whenRequests(1);
    const missed: unknown = await bot.waitFor(isReply, 'the reply to "what is milk?"').catch((error: unknown) => error);
    expect(missed).toBeInstanceOf(Error);
    const message = (missed as Error).message;
    expect(message).toMatch(/^waited 1500 ms for the reply to "what is milk\?", in vain\nstdout so far \(\d+ chars\):\n/);
    expect(message).toContain('"type":"ready"');
    expect(message).toMatch(/\nstderr so far \(\d+ chars\):\n/);
    const unnamed: unknown = await bot.waitFor((e) => e['type'] === 'never').catch((error: unknown) => error);
    expect((unnamed as Error).message).toMatch(/^waited 1500 ms for an event matching \(e\) => e\["type"\] === "never"|^waited 1500 ms for an event matching \(e\) => e\['type'\] === 'never'/);
    await expect(bot.exited).rejects.toThrow(/^waited 1500 ms for the program to exit, in vain\n/);
  });

  it('calls an HTTP tool once and answers from its result, then exits 0 at the end of input', async () => {
    fake.enqueue(chatToolCalls([{ id: 'c1', name: 'lookup', args: '{"word":"milk"}' }]), chatText('Milk is a drink.'));
    const bot = start(configFile());
    await bot.waitFor((e) => e['type'] === 'ready');
    bot.send('What is milk?');
    expect(await bot.waitFor(isReply)).toMatchObject({ type: 'message', kind: 'reply', text: 'Milk is a drink.' });
    expect(target.requests.map((r) => r.path)).toEqual(['/lookup/milk']);
    bot.endInput();
    expect(await bot.exited).toBe(0);
    expect(bot.events.filter((e) => e['type'] === 'turn').map((e) => e['status'])).toEqual(['ACTIVE', 'TERMINAL_COMPLETED']);
  });

  it('answers a 10 MB line "rejected", naming the limit, without sending it to the model, and goes on with the next', async () => {
    fake.enqueue(chatText('Hello.'));
    const bot = start(configFile());
    await bot.waitFor((e) => e['type'] === 'ready');
    bot.send('x'.repeat(10 * 1024 * 1024));
    bot.send('hello');
    expect(await bot.waitFor((e) => e['notice'] === 'rejected')).toMatchObject({ kind: 'notice', text: expect.stringContaining('32000 characters') as unknown });
    expect(await bot.waitFor(isReply)).toMatchObject({ text: 'Hello.' });
    bot.endInput();
    expect(await bot.exited).toBe(0);
    expect(fake.requests).toHaveLength(1);
    const messages = (fake.requests[0]?.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role !== 'system');
    expect(messages).toEqual([{ role: 'user', content: '[console-user]: hello' }]);
  });

  it('ends a turn TERMINAL_CANCELLED on /stop during a slow model stream', async () => {
    fake.enqueue({ kind: 'stream', chunks: [sse({ choices: [{ index: 0, delta: { content: 'Thinking' } }] })], then: 'stall' });
    const bot = start(configFile());
    await bot.waitFor((e) => e['type'] === 'ready');
    bot.send('Take your time.');
    await fake.whenRequests(1);
    bot.send('/stop');
    await bot.waitFor(turnStatus('TERMINAL_CANCELLED'));
    expect(await bot.waitFor((e) => e['notice'] === 'cancelled')).toMatchObject({ kind: 'notice', text: 'Stopped.' });
    await fake.whenClientClosed();
  });

  it('suspends a turn on endless overload with a short deadline, and says so', async () => {
    const overloaded = { kind: 'reply' as const, status: 529, body: { error: { type: 'overloaded_error' } } };
    fake.enqueue(...Array.from({ length: 200 }, () => overloaded));
    const bot = start(configFile('llm_recovery:\n  generation_deadline_seconds: 0.5\n  backoff_base_seconds: 0.05\n  backoff_cap_seconds: 0.1\n'));
    await bot.waitFor((e) => e['type'] === 'ready');
    bot.send('Are you there?');
    expect(await bot.waitFor((e) => e['notice'] === 'suspended')).toMatchObject({ kind: 'notice', text: expect.stringMatching(/saved/) as unknown });
    await bot.waitFor(turnStatus('SUSPENDED'));
  });

  it('suspends the running turn with reason shutdown on SIGTERM and exits 0', async () => {
    fake.enqueue({ kind: 'stream', chunks: [sse({ choices: [{ index: 0, delta: { content: 'Working' } }] })], then: 'stall' });
    const bot = start(configFile());
    await bot.waitFor((e) => e['type'] === 'ready');
    bot.send('A long question.');
    await fake.whenRequests(1);
    bot.kill('SIGTERM');
    expect(await bot.exited).toBe(0);
    expect(bot.events.filter((e) => e['type'] === 'turn').map((e) => e['status'])).toEqual(['ACTIVE', 'SUSPENDED']);
    const db = new BetterSqlite3(join(temp.path(), 'data/turn_state/turns.sqlite3'), { readonly: true });
    expect(db.prepare('SELECT status, suspension_reason FROM turns').all()).toEqual([{ status: 'SUSPENDED', suspension_reason: 'shutdown' }]);
    db.close();
  });

  it('still answers, with the conversation kept in memory, when the store is off', async () => {
    fake.enqueue(chatText('Nice to meet you, Ada.'), chatText('Your name is Ada.'));
    const bot = start(configFile('turn_state:\n  enabled: false\n'));
    await bot.waitFor((e) => e['type'] === 'ready');
    bot.send('My name is Ada.');
    await bot.waitFor(isReply);
    bot.send('What is my name?');
    await bot.waitFor((e) => isReply(e) && e['text'] === 'Your name is Ada.');
    bot.endInput();
    expect(await bot.exited).toBe(0);
    const messages = (fake.requests[1]?.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role !== 'system');
    expect(messages.map((m) => m.content)).toEqual(['[console-user]: My name is Ada.', 'Nice to meet you, Ada.', '[console-user]: What is my name?']);
    expect(bot.stderr()).toContain('conversation history and memory notes are kept in memory only');
    expect(existsSync(join(temp.path(), 'data'))).toBe(false);
  });

  it('answers a message in each of two runs whose wall clocks read the same millisecond', async () => {
    // The wall clock of each run stands still at one instant, as two runs in one millisecond see it.
    const env = { PATH: process.env['PATH'], NODE_OPTIONS: '--import=data:text/javascript,Date.now=()=>1767225600000' };
    const config = configFile();
    for (const text of ['First question.', 'Second question.']) {
      fake.enqueue(chatText(`Answer to: ${text}`));
      program = startJsonLinesProgram(['--config', config], { cwd: temp.path(), env });
      const bot = program;
      await bot.waitFor((e) => e['type'] === 'ready');
      bot.send(text);
      expect(await bot.waitFor((e) => isReply(e) || e['kind'] === 'notice')).toMatchObject({ kind: 'reply', text: `Answer to: ${text}` });
      bot.endInput();
      expect(await bot.exited).toBe(0);
    }
  });

  it('still answers when the store file is damaged, logging which file and why in one line, without a stack trace', async () => {
    const made = openTestStoreFile(temp.path());
    await made.close();
    damageTreeOf(made.dbPath, 'turns_by_status');
    fake.enqueue(chatText('Milk is a drink.'));
    const bot = start(configFile());
    await bot.waitFor((e) => e['type'] === 'ready');
    bot.send('what is milk?');
    expect(await bot.waitFor(isReply)).toMatchObject({ text: 'Milk is a drink.' });
    bot.endInput();
    expect(await bot.exited).toBe(0);
    const logs = bot
      .stderr()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 50,
        file: made.dbPath,
        cause: expect.stringMatching(/^the turn store is damaged: .*page/) as unknown,
        msg: expect.stringMatching(/^the store could not open: turns are NOT durable/) as unknown,
      }),
    );
    expect(bot.stderr()).not.toMatch(/\n\s+at /);
  });

  it('fills the system prompt’s placeholders for each turn: the UTC date and time of its start, and the console’s names', async () => {
    const prompt = 'Today is {date}; it is {time}. {user} asks in {channel} on {server}. Reply as {"answer": "…"}; {{user} stays.';
    fake.enqueue(chatText('Hello.'), chatText('Hello again.'));
    const bot = start(configFile(`chat:\n  system_prompt: '${prompt}'\n`));
    await bot.waitFor((e) => e['type'] === 'ready');
    const systemOf = (index: number): unknown => (fake.requests[index]?.body as { messages: { role: string; content: unknown }[] }).messages.find((m) => m.role === 'system')?.content;
    for (const [index, text] of ['hello', 'hello again'].entries()) {
      // The program's clock is the machine's: its time lies between these two instants, to the second.
      const before = Math.floor(Date.now() / 1000) * 1000;
      bot.send(text);
      await bot.waitFor((e) => isReply(e) && e['text'] === (index === 0 ? 'Hello.' : 'Hello again.'));
      const after = Date.now();
      const system = String(systemOf(index));
      const [, date = '', time = ''] = /^Today is (\d{4}-\d{2}-\d{2}); it is (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)\. /.exec(system) ?? [];
      expect(system).toBe(`Today is ${date}; it is ${time}. console-user asks in console on console. Reply as {"answer": "…"}; {user} stays.`);
      expect(time.slice(0, 10)).toBe(date);
      expect(Date.parse(time)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(time)).toBeLessThanOrEqual(after);
    }
  });

  it('keeps the conversation across a restart: the next request carries the earlier exchange', async () => {
    fake.enqueue(chatText('Nice to meet you, Ada.'));
    const first = start(configFile());
    await first.waitFor((e) => e['type'] === 'ready');
    first.send('My name is Ada.');
    await first.waitFor(isReply);
    first.endInput();
    expect(await first.exited).toBe(0);

    fake.enqueue(chatText('Your name is Ada.'));
    const second = start(configFile());
    await second.waitFor((e) => e['type'] === 'ready');
    second.send('What is my name?');
    expect(await second.waitFor(isReply)).toMatchObject({ text: 'Your name is Ada.' });
    const messages = (fake.requests[1]?.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role !== 'system');
    expect(messages).toEqual([
      { role: 'user', content: '[console-user]: My name is Ada.' },
      { role: 'assistant', content: 'Nice to meet you, Ada.' },
      { role: 'user', content: '[console-user]: What is my name?' },
    ]);
  });
});
