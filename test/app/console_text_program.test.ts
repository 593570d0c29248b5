import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deferred } from '../support/deferred.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { runProgram } from '../support/program.js';
import { terminalControlsIn } from '../support/terminal_controls.js';
import { startOnTerminal } from '../support/terminal_program.js';
import { useTempDir } from '../support/temp_dir.js';

// A real process: a generous limit that only catches hangs.
describe('the bot in the terminal, as a child process writing text', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  let fake: FakeLLMServer;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await fake.close();
  });

  const config = (): string => temp.write('config.yml', `llm:\n  provider: openai\n  base_url: ${fake.baseUrl}\n  model: test-model\nlogging:\n  level: warn\n`);

  it('prints a reply full of terminal control sequences without any of them, even split between deltas', async () => {
    fake.enqueue(chatText(['Hi\u001b]0;owned\u0007 there\u001b[2', 'J. \u001b', '[31mRed\u001b[0m\r\n\u009b1;1HEnd.\u001b']));
    const run = await runProgram(['--console', '--config', config()], { cwd: temp.path(), stdin: 'hello\n' });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('bot> Hi there. Red\nEnd.\n');
    expect(terminalControlsIn(run.stdout)).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it('marks notices apart from replies, and writes no prompt and no control sequences to a pipe', async () => {
    fake.enqueue(chatText(['Hi.']));
    const run = await runProgram(['--console', '--config', config()], { cwd: temp.path(), stdin: '/status\nhello\n' });
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Holdfast is ready\./);
    expect(run.stdout).toMatch(/^-- \[status\] \S/m);
    expect(run.stdout).toContain('\nbot> Hi.\n');
    // A notice of several lines is indented under its mark.
    expect(lines.slice(1).filter((line) => !/^(-- \[\w+\] | {3}\S|bot> )/.test(line))).toEqual([]);
    expect(run.stdout).not.toContain('you> ');
    expect(terminalControlsIn(run.stdout)).toEqual([]);
  });

  it('on a terminal, keeps what the person types while a reply streams on the input line below it, and sends exactly that on Enter', async () => {
    const rest = deferred();
    const first = chatText(['The first part', ' of the reply.\nA second line.']);
    fake.enqueue({ ...first, chunks: [...first.chunks.slice(0, 2), rest.promise, ...first.chunks.slice(2)] }, chatText(['Got it.']));
    const bot = startOnTerminal(['--console', '--config', config()], { cwd: temp.path() });
    await bot.shows((lines) => lines.at(-1) === 'you>', 'the prompt');
    bot.keys('hello\r');
    await bot.shows((lines) => lines.at(-2) === 'bot> The first part', 'the first part of the reply');
    bot.keys('draft more');
    await bot.shows((lines) => lines.at(-1) === 'you> draft more', 'what was typed, on the input line');
    rest.resolve();
    await bot.shows((lines) => lines.at(-2) === 'A second line.', 'the rest of the reply');
    bot.keys('\r');
    await bot.shows((lines) => lines.at(-2) === 'bot> Got it.', 'the answer to what was typed');
    const lines = bot.screen.lines();
    expect(lines.slice(lines.indexOf(READY))).toEqual([READY, 'you> hello', 'bot> The first part of the reply.', 'A second line.', 'you> draft more', 'bot> Got it.', 'you>']);
    expect(lastUserText(fake.requests[1]?.body)).toBe('[console-user]: draft more');
    bot.keys('\u0004');
    expect(await bot.exited).toBe(0);
  });

  it('on a terminal, writes warnings to the log file only, and shows one line pointing at it for those of one exchange', async () => {
    const rateLimited = { kind: 'reply', status: 429, body: { error: { message: 'slow down' } } } as const;
    fake.enqueue(rateLimited, rateLimited, chatText(['Hi.']));
    const keys = temp.write('keys.yml', `llm:\n  provider: openai\n  base_url: ${fake.baseUrl}\n  model: test-model\n  api_keys: [one, two, three]\nlogging:\n  level: warn\n`);
    const bot = startOnTerminal(['--console', '--config', keys], { cwd: temp.path() });
    await bot.shows((lines) => lines.at(-1) === 'you>', 'the prompt');
    bot.keys('hello\r');
    await bot.shows((lines) => lines.at(-2) === 'bot> Hi.', 'the reply');
    const lines = bot.screen.lines();
    expect(lines.slice(lines.indexOf(READY))).toEqual([READY, 'you> hello', '-- [log] a warning or error was logged: see data/holdfast.log', 'bot> Hi.', 'you>']);
    bot.keys('\u0004');
    expect(await bot.exited).toBe(0);
    const warned = readFileSync(join(temp.path(), 'data/holdfast.log'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line['level'] === 40);
    expect(warned.map((line) => line['msg'])).toEqual(['API key rate limited; trying the next key', 'API key rate limited; trying the next key']);
  });
});

const READY = 'Holdfast is ready. Type a message; `/help` lists the commands.';

/** The text of the last user message in a chat request's body. */
function lastUserText(body: unknown): unknown {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  return messages.filter((message) => message.role === 'user').at(-1)?.content;
}
