import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { isNotice, isReply, type JsonLinesProgram, startJsonLinesProgram, useProgramsKilledAfterEach } from '../support/program.js';
import { useTempDir } from '../support/temp_dir.js';
import { deferred } from '../support/deferred.js';
import { ToolTarget } from '../support/tool_target.js';

const never = new Promise<void>(() => undefined);

// Real processes: generous limits that only catch hangs.
describe('a turn interrupted by a restart continues by itself, as a child process', { timeout: 120_000 }, () => {
  const temp = useTempDir();
  let fake: FakeLLMServer;
  let target: ToolTarget;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
    target = await ToolTarget.start();
  });
  afterEach(async () => {
    await fake.close();
    await target.close();
  });
  // Registered after the servers' hook, so that it runs first: the programs stop before their servers.
  const track = useProgramsKilledAfterEach();

  function start(dir: string, extra = ''): JsonLinesProgram {
    mkdirSync(dir, { recursive: true });
    const config = join(dir, 'config.yml');
    writeFileSync(
      config,
      `llm:
  base_url: ${fake.baseUrl}
  model: test-model
logging:
  level: info
${extra}tools:
  builtin: []
  http:
    - name: save_note
      description: Saves a note.
      method: POST
      url: ${target.url}/notes
      effect: write
      parameters: { type: object, properties: { text: { type: string } }, required: [text] }
    - name: lookup
      description: Looks a word up.
      url: ${target.url}/lookup/{word}
      effect: read
      parameters: { type: object, properties: { word: { type: string } }, required: [word] }
`,
    );
    return track(startJsonLinesProgram(['--config', config], { cwd: dir, env: { PATH: process.env['PATH'] } }));
  }

  /** Calls the target saw, by tool: its path's first segment. */
  const calls = (tool: string): number => target.requests.filter((request) => request.path.startsWith(`/${tool}`)).length;

  it('after a SIGKILL during a read step, answers with nobody typing resume: the read runs again, the write of an earlier step does not', async () => {
    target.reply({ status: 200, body: 'saved' }, { hold: never });
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"milk"}' }]), chatToolCalls([{ id: 'r1', name: 'lookup', args: '{"word":"milk"}' }]));
    const dir = temp.path();
    const first = start(dir);
    await first.waitFor((event) => event['type'] === 'ready');
    target.onRequest = (request) => {
      if (request.path.startsWith('/lookup')) first.kill('SIGKILL');
    };
    first.send('note milk, then look it up');
    await first.exited;
    target.onRequest = undefined;
    fake.enqueue(chatText('Noted milk: a white drink.'));

    const again = start(dir);
    expect(await again.waitFor(isReply)).toMatchObject({ text: 'Noted milk: a white drink.' });
    expect(again.events.filter((event) => event['type'] === 'message' && event['kind'] === 'notice').map((event) => [event['notice'], event['text']])).toEqual([
      ['resumed', 'Continuing your request after a restart.'],
    ]);
    expect(calls('notes')).toBe(1);
    expect(calls('lookup')).toBe(2);
    const last = fake.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
    expect(last.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'r1', content: 'ok' });
  });

  it('after a SIGKILL during a write, goes to an operator instead: the verdict notice, no continuation', async () => {
    target.reply({ hold: never });
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"milk"}' }]));
    const dir = temp.path();
    const first = start(dir);
    await first.waitFor((event) => event['type'] === 'ready');
    target.onRequest = () => first.kill('SIGKILL');
    first.send('note milk');
    await first.exited;
    target.onRequest = undefined;

    const again = start(dir);
    expect(await again.waitFor(isNotice('manual_resolution'))).toMatchObject({ text: expect.stringMatching(/`save_note` \(call w1\)/) as unknown });
    again.endInput();
    expect(await again.exited).toBe(0);
    expect(again.events.filter(isNotice('resumed'))).toEqual([]);
    expect(again.events.filter(isReply)).toEqual([]);
    expect(fake.requests).toHaveLength(1);
    expect(calls('notes')).toBe(1);
  });

  it('after SIGTERM says it will continue, and does once the bot is back', async () => {
    const looked = deferred();
    target.reply({ hold: looked.promise, body: 'a white drink' });
    fake.enqueue(chatToolCalls([{ id: 'r1', name: 'lookup', args: '{"word":"milk"}' }]));
    const dir = temp.path();
    const first = start(dir);
    await first.waitFor((event) => event['type'] === 'ready');
    target.onRequest = () => first.kill('SIGTERM');
    first.send('look milk up');
    // The read settles after the signal, as a running call does at a shutdown.
    await first.logged('shutting down');
    looked.resolve();
    expect(await first.waitFor(isNotice('suspended'))).toMatchObject({
      text: 'The bot is restarting. Your request and the work done so far are saved: I will continue it once the bot is back.',
    });
    await first.exited;
    target.onRequest = undefined;
    fake.enqueue(chatText('Milk is a white drink.'));

    const again = start(dir);
    expect(await again.waitFor(isReply)).toMatchObject({ text: 'Milk is a white drink.' });
    expect(again.events.filter(isNotice('resumed'))).toHaveLength(1);
    // The read's answer was kept: the model reads it, and the read does not run again.
    expect(target.requests).toHaveLength(1);
    const last = fake.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
    expect(last.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'r1', content: 'a white drink' });
  });

  it('leaves the turn to its requester with continue_after_restart: false', async () => {
    target.reply({ hold: never });
    fake.enqueue(chatToolCalls([{ id: 'r1', name: 'lookup', args: '{"word":"milk"}' }]));
    const dir = temp.path();
    const off = 'turn_state:\n  continue_after_restart: false\n';
    const first = start(dir, off);
    await first.waitFor((event) => event['type'] === 'ready');
    target.onRequest = () => first.kill('SIGKILL');
    first.send('look milk up');
    await first.exited;
    target.onRequest = undefined;

    const again = start(dir, off);
    expect(await again.waitFor(isNotice('interrupted'))).toMatchObject({ text: expect.stringMatching(/Type `resume` to continue it\.$/) as unknown });
    again.endInput();
    expect(await again.exited).toBe(0);
    expect(again.events.filter(isReply)).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });
});
