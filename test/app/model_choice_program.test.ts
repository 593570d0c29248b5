import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { isNotice, isReply, type JsonLinesProgram, startJsonLinesProgram, useProgramsKilledAfterEach } from '../support/program.js';
import { useTempDir } from '../support/temp_dir.js';

const LIST_HEAD = 'Models here, in the order they are tried (`/model NAME` picks the one tried first, `/model default` goes back to the configured order):';

// A real process: a generous limit that only catches hangs.
describe('/model in the console, as a child process', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  const track = useProgramsKilledAfterEach();
  let fake: FakeLLMServer;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await fake.close();
  });

  /** Two models on the fake, `test-model` first; the console user is an admin when `admin`. */
  const config = (admin: boolean): string =>
    temp.write(
      'config.yml',
      `llm:
  provider: openai
  base_url: ${fake.baseUrl}
  model: test-model
  fallbacks:
    - provider: openai
      base_url: ${fake.baseUrl}
      model: fast-model
logging:
  level: warn
${admin ? 'permissions:\n  admins: [console-user]\n' : ''}`,
    );

  async function started(admin: boolean): Promise<JsonLinesProgram> {
    const program = track(startJsonLinesProgram(['--config', config(admin)], { cwd: temp.path() }));
    await program.waitFor((event) => event['type'] === 'ready', 'the program to be ready');
    return program;
  }

  /** Types `line` and resolves with the text of the next notice (the answer to a command). */
  async function answer(program: JsonLinesProgram, line: string): Promise<{ notice: unknown; text: unknown }> {
    const before = program.events.length;
    program.send(line);
    const event = await program.waitFor((e) => e['type'] === 'message' && e['kind'] === 'notice' && program.events.indexOf(e) >= before, `the answer to ${line}`);
    return { notice: event['notice'], text: event['text'] };
  }

  /** Types `line` as a message; resolves with the model the fake was asked by, once its reply arrived. */
  async function askedModel(program: JsonLinesProgram, line: string, reply: string): Promise<unknown> {
    fake.enqueue(chatText(reply));
    const asked = fake.requests.length;
    program.send(line);
    await program.waitFor((e) => isReply(e) && e['text'] === reply, `the reply ${reply}`);
    return (fake.requests[asked]?.body as { model?: unknown }).model;
  }

  it('lets an admin list the models, pick one that the next message is answered by and that holds across a restart, and go back to the configured order', async () => {
    const first = await started(true);
    expect(await answer(first, '/model')).toEqual({ notice: 'status', text: `${LIST_HEAD}\n• \`test-model\`: in use\n• \`fast-model\`` });
    expect(await answer(first, '/model slow-model')).toEqual({
      notice: 'rejected',
      text: 'There is no model `slow-model` here: the models of this channel are `test-model` and `fast-model`.',
    });
    expect(await answer(first, '/model fast-model')).toEqual({ notice: 'status', text: 'From the next request on, this channel uses `fast-model` (then `test-model` when it is overloaded).' });
    expect(await askedModel(first, 'Which model are you?', 'The fast one.')).toBe('fast-model');
    const status = await answer(first, '/status');
    expect(String(status.text).split('\n')).toEqual(
      expect.arrayContaining([
        'Model here: `fast-model`, chosen by an admin (`/model default` goes back to the configured order).',
        'Models here, in the order they are tried:',
        '- fast-model (openai): available.',
        '- test-model (openai): available.',
      ]),
    );
    first.endInput();
    expect(await first.exited).toBe(0);

    const second = await started(true);
    expect(await askedModel(second, 'And now?', 'Still the fast one.')).toBe('fast-model');
    expect(await answer(second, '/model')).toEqual({ notice: 'status', text: `${LIST_HEAD}\n• \`fast-model\`: in use, chosen by an admin\n• \`test-model\`` });
    expect(await answer(second, '/model default')).toEqual({ notice: 'status', text: 'This channel is back to the configured order: `test-model` (then `fast-model` when it is overloaded).' });
    expect(await askedModel(second, 'And after that?', 'The first one again.')).toBe('test-model');
    expect((await answer(second, '/status')).text).not.toMatch(/chosen by an admin/);
    second.endInput();
    expect(await second.exited).toBe(0);
  });

  it('refuses /model to a console user who is not an admin, changing nothing and sending nothing to the model', async () => {
    const program = await started(false);
    expect(await answer(program, '/model fast-model')).toEqual({ notice: 'rejected', text: 'Only the bot’s admins can use /model.' });
    expect(await answer(program, '/model')).toEqual({ notice: 'rejected', text: 'Only the bot’s admins can use /model.' });
    expect(fake.requests).toEqual([]);
    expect(await askedModel(program, 'Which model are you?', 'The first one.')).toBe('test-model');
    expect((await answer(program, '/help')).text).not.toMatch(/\/model/);
    program.endInput();
    expect(await program.exited).toBe(0);
    expect(program.events.filter(isNotice('failed'))).toEqual([]);
  });
});
