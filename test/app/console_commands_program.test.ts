import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { heldAnswer } from '../support/discord_bot.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { deferred } from '../support/deferred.js';
import { isNotice, isReply, runProgram, startJsonLinesProgram, useProgramsKilledAfterEach } from '../support/program.js';
import { useTempDir } from '../support/temp_dir.js';

/** The `message` events of a JSON-lines run, in order. */
function messages(stdout: string): { kind: string; notice?: string; text: string }[] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; kind: string; notice?: string; text: string })
    .filter((event) => event.type === 'message');
}

// A real process: a generous limit that only catches hangs.
describe('commands typed in the console, as a child process', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  const track = useProgramsKilledAfterEach();
  let fake: FakeLLMServer;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await fake.close();
  });

  const config = (): string => temp.write('config.yml', `llm:\n  provider: openai\n  base_url: ${fake.baseUrl}\n  model: test-model\nlogging:\n  level: warn\n`);

  it('lists the commands on /help, answers an unknown /command and a bare resume itself, and sends only the conversation to the model', async () => {
    fake.enqueue(chatText('Continuing the story.'));
    const run = await runProgram(['--console', '--jsonl', '--config', config()], { cwd: temp.path(), stdin: '/help\n/frobnicate now\nresume\n/etc/hosts is a file\n' });
    expect(run.status).toBe(0);
    const [help, unknown, resume, reply] = messages(run.stdout);
    expect(help).toMatchObject({
      kind: 'notice',
      notice: 'status',
      text: expect.stringMatching(/^Commands:\n• `\/help`: this list\n• `\/status`: .*\n• `\/stop`: .*\n• `resume` or `\/resume \[id\]`: /) as unknown,
    });
    expect(help?.text).not.toContain('/turns');
    expect(unknown).toEqual({ type: 'message', turn: null, kind: 'notice', notice: 'rejected', text: 'Unknown command `/frobnicate` — /help lists them.' });
    expect(resume).toMatchObject({ kind: 'notice', notice: 'status', text: 'You have no saved request in this channel to resume.' });
    // A path is no command: it goes to the model like any message.
    expect(reply).toMatchObject({ kind: 'reply', text: 'Continuing the story.' });
    expect(fake.requests).toHaveLength(1);
    expect(JSON.stringify(fake.requests[0]?.body)).not.toMatch(/frobnicate|"resume"|\/help/);
  });

  it('shows on /status how many messages wait behind the running one, and the first words of each', async () => {
    const held = deferred();
    fake.enqueue(heldAnswer('Working', held.promise, ' on it.'), chatText('Second.'), chatText('Third.'));
    const bot = track(startJsonLinesProgram(['--config', config()], { cwd: temp.path() }));
    await bot.waitFor((event) => event['type'] === 'ready');
    bot.send('first question');
    await fake.whenRequests(1);
    bot.send('please compare the populations of Oslo, Bergen, Trondheim and Stavanger for me');
    bot.send('thanks');
    bot.send('/status');
    const status = await bot.waitFor(isNotice('status'));
    expect(String(status['text']).split('\n').slice(0, 4)).toEqual([
      expect.stringMatching(/^Working on a request \(turn \w+\) for \d+ s: /) as unknown,
      '2 messages wait behind it:',
      '• “please compare the populations of Oslo, Bergen, Trondheim…”',
      '• “thanks”',
    ]);
    held.resolve();
    await bot.waitFor((event) => isReply(event) && event['text'] === 'Third.');
    bot.send('/status');
    const after = await bot.waitFor((event) => isNotice('status')(event) && event !== status);
    expect(after['text']).not.toMatch(/wait behind it/);
    bot.endInput();
    expect(await bot.exited).toBe(0);
  });
});
