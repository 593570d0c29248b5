import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer, sse } from '../support/fake_llm/server.js';
import { isNotice, isReply, type JsonLinesProgram, startJsonLinesProgram, useProgramsKilledAfterEach } from '../support/program.js';
import { useTempDir } from '../support/temp_dir.js';

/** The text of the last user message of each request the fake model received. */
function askedFor(fake: FakeLLMServer): unknown[] {
  return fake.requests.map((request) => (request.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'user').at(-1)?.content);
}

// Real processes: generous limits that only catch hangs.
describe('messages queued behind a running turn, across a stop of the real program', { timeout: 120_000 }, () => {
  const temp = useTempDir();
  let fake: FakeLLMServer;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await fake.close();
  });
  // Registered after the servers' hook, so that it runs first: the programs stop before their servers.
  const track = useProgramsKilledAfterEach();

  function start(dir: string): JsonLinesProgram {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'config.yml'),
      `llm:\n  base_url: ${fake.baseUrl}\n  model: test-model\nlogging:\n  level: warn\nturn_state:\n  continue_after_restart: false\nchat:\n  max_queued_per_channel: 2\ntools:\n  builtin: []\n`,
    );
    const program = startJsonLinesProgram(['--config', join(dir, 'config.yml')], { cwd: dir, env: { PATH: process.env['PATH'] } });
    return track(program);
  }

  /** A first request the model never finishes, two queued behind it, and a fourth turned away as busy. */
  async function queueBehindAStalledTurn(dir: string): Promise<JsonLinesProgram> {
    fake.enqueue({ kind: 'stream', chunks: [sse({ choices: [{ index: 0, delta: { content: 'Work' } }] })], then: 'stall' });
    const first = start(dir);
    await first.waitFor((e) => e['type'] === 'ready');
    first.send('first');
    await fake.whenRequests(1);
    first.send('second');
    first.send('third');
    first.send('fourth');
    // Messages are taken in order: once the fourth is turned away, the two before it are kept.
    await first.waitFor(isNotice('busy'), 'the fourth message to be turned away');
    return first;
  }

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`starts none of the queued messages at ${signal}, and answers each exactly once, in order, after the next start`, async () => {
      const dir = temp.path();
      const first = await queueBehindAStalledTurn(dir);
      first.kill(signal);
      expect(await first.exited).toBe(signal === 'SIGTERM' ? 0 : null);
      expect(fake.requests).toHaveLength(1);
      expect(first.events.filter(isReply)).toEqual([]);

      fake.enqueue(chatText('Answer to second.'), chatText('Answer to third.'));
      const again = start(dir);
      // A turn cut off by SIGTERM was told it is saved; one cut off by SIGKILL is announced at the restart.
      if (signal === 'SIGKILL') await again.waitFor(isNotice('interrupted'), 'the first request to be announced as interrupted');
      await again.waitFor((e) => isReply(e) && e['text'] === 'Answer to third.', 'the third message to be answered');
      again.endInput();
      expect(await again.exited).toBe(0);
      expect(again.events.filter(isReply).map((e) => e['text'])).toEqual(['Answer to second.', 'Answer to third.']);
      expect(askedFor(fake).slice(1)).toEqual(['[console-user]: second', '[console-user]: third']);

      const third = start(dir);
      await third.waitFor((e) => e['type'] === 'ready');
      third.endInput();
      expect(await third.exited).toBe(0);
      expect(third.events.filter(isReply)).toEqual([]);
      expect(fake.requests).toHaveLength(3);
    });
  }
});
