import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { McpTarget } from '../support/mcp_target.js';
import { isNotice, isReply, type JsonLinesProgram, startJsonLinesProgram, useProgramsKilledAfterEach, resumeAfterRestart } from '../support/program.js';
import { useTempDir } from '../support/temp_dir.js';

const never = new Promise<void>(() => undefined);

// Real processes: generous limits that only catch hangs.
describe('killing the real program while an MCP tool call is in flight', { timeout: 120_000 }, () => {
  const temp = useTempDir();
  let fake: FakeLLMServer;
  let target: McpTarget;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
    target = await McpTarget.start();
  });
  afterEach(async () => {
    await fake.close();
    await target.close();
  });
  // Registered after the servers' hook, so that it runs first: the programs stop before their servers.
  const track = useProgramsKilledAfterEach();

  function start(dir: string): JsonLinesProgram {
    mkdirSync(dir, { recursive: true });
    const config = join(dir, 'config.yml');
    writeFileSync(
      config,
      `llm:\n  base_url: ${fake.baseUrl}\n  model: test-model\nlogging:\n  level: warn\nturn_state:\n  continue_after_restart: false\n` +
        `tools:\n  builtin: []\n  mcp:\n    - name: target\n      url: ${target.url}\n`,
    );
    return track(startJsonLinesProgram(['--config', config], { cwd: dir, env: { PATH: process.env['PATH'] } }));
  }

  /** Sends `text`, which makes the model call `tool`, and kills the program as the call reaches the server. */
  async function killedDuring(dir: string, tool: string, text: string): Promise<void> {
    target.answer({ hold: never });
    fake.enqueue(chatToolCalls([{ id: 'c1', name: tool, args: '{"text":"once"}' }]));
    const first = start(dir);
    await first.waitFor((e) => e['type'] === 'ready');
    target.onCall = () => first.kill('SIGKILL');
    first.send(text);
    await first.exited;
    target.onCall = undefined;
  }

  it('halts for manual resolution when a write was in flight, and never sends it again', async () => {
    const dir = temp.path();
    await killedDuring(dir, 'target__bare', 'Send the report.');
    const requestsBefore = fake.requests.length;
    const again = await resumeAfterRestart(start(dir));
    expect(await again.waitFor(isNotice('manual_resolution'))).toMatchObject({ text: expect.stringMatching(/`target__bare` \(call c1\)/) as unknown });
    expect(target.calls.map((call) => call.tool)).toEqual(['bare']);
    expect(fake.requests).toHaveLength(requestsBefore);
  });

  it('runs a read-only call again on resume and completes the turn', async () => {
    const dir = temp.path();
    await killedDuring(dir, 'target__reader', 'Look it up.');
    fake.enqueue(chatText('Found it.'));
    const again = await resumeAfterRestart(start(dir));
    expect(await again.waitFor(isReply)).toMatchObject({ text: 'Found it.' });
    expect(target.calls.map((call) => call.tool)).toEqual(['reader', 'reader']);
    const lastRequest = fake.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
    expect(lastRequest.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'reader done' });
  });

  it('re-sends an idempotent call once on resume, with the same idempotency key in _meta', async () => {
    const dir = temp.path();
    await killedDuring(dir, 'target__repeater', 'Set the flag.');
    fake.enqueue(chatText('The flag is set.'));
    const again = await resumeAfterRestart(start(dir));
    expect(await again.waitFor(isReply)).toMatchObject({ text: 'The flag is set.' });
    const keys = target.calls.map((call) => call.meta?.['holdfast/idempotency_key']);
    const db = new BetterSqlite3(join(dir, 'data/turn_state/turns.sqlite3'), { readonly: true });
    const stored = db.prepare('SELECT idempotency_key FROM ops').all();
    db.close();
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^hf_[0-9a-f]{40}$/);
    expect(stored).toEqual([{ idempotency_key: keys[0] }]);
    expect(keys[1]).toBe(keys[0]);
  });
});
