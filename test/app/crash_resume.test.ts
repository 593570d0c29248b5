import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer, sse } from '../support/fake_llm/server.js';
import { isNotice, isReply, type JsonLinesProgram, startJsonLinesProgram, useProgramsKilledAfterEach, resumeAfterRestart } from '../support/program.js';
import { useTempDir } from '../support/temp_dir.js';
import { ToolTarget } from '../support/tool_target.js';

const never = new Promise<void>(() => undefined);

// Real processes and long matrices: generous limits that only catch hangs.
describe('killing the real program and resuming on the same database', { timeout: 120_000 }, () => {
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

  function configIn(dir: string): string {
    const path = join(dir, 'config.yml');
    const yaml = `llm:
  base_url: ${fake.baseUrl}
  model: test-model
logging:
  level: warn
turn_state:
  continue_after_restart: false
tools:
  builtin: []
  http:
    - name: save_note
      description: Saves a note.
      method: POST
      url: ${target.url}/notes
      effect: write
      parameters: { type: object, properties: { text: { type: string } }, required: [text] }
    - name: charge
      description: Charges a card.
      method: POST
      url: ${target.url}/charges
      effect: idempotent
      idempotency_header: Idempotency-Key
      parameters: { type: object, properties: { cents: { type: integer } }, required: [cents] }
`;
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, yaml);
    return path;
  }

  function start(dir: string, fault?: string): JsonLinesProgram {
    const env = { PATH: process.env['PATH'], ...(fault === undefined ? {} : { HOLDFAST_FAULT: fault }) };
    const program = startJsonLinesProgram(['--config', configIn(dir)], { cwd: dir, env });
    return track(program);
  }

  it('halts for manual resolution when killed while a write was in flight, without asking the model again', async () => {
    target.reply({ hold: never });
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' }]));
    const dir = temp.path();
    const first = start(dir);
    await first.waitFor((e) => e['type'] === 'ready');
    target.onRequest = () => first.kill('SIGKILL');
    first.send('Note: buy milk');
    await first.exited;
    const requestsBefore = fake.requests.length;
    const again = await resumeAfterRestart(start(dir));
    expect(await again.waitFor(isNotice('manual_resolution'))).toMatchObject({ text: expect.stringMatching(/`save_note` \(call w1\)/) as unknown });
    expect(target.requests).toHaveLength(1);
    expect(fake.requests).toHaveLength(requestsBefore);
  });

  it('re-sends an idempotent call once with the same key and completes', async () => {
    target.reply({ hold: never });
    fake.enqueue(chatToolCalls([{ id: 'c1', name: 'charge', args: '{"cents":500}' }]));
    const dir = temp.path();
    const first = start(dir);
    await first.waitFor((e) => e['type'] === 'ready');
    target.onRequest = () => first.kill('SIGKILL');
    first.send('Charge 5 dollars');
    await first.exited;
    target.onRequest = undefined;
    fake.enqueue(chatText('Charged 5 dollars.'));
    const again = await resumeAfterRestart(start(dir));
    expect(await again.waitFor(isReply)).toMatchObject({ text: 'Charged 5 dollars.' });
    const keys = target.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    // Present and the op's own stored key, so that "the same key" cannot be two missing ones.
    expect(keys[0]).toMatch(/^hf_[0-9a-f]{40}$/);
    const db = new BetterSqlite3(join(dir, 'data/turn_state/turns.sqlite3'), { readonly: true });
    const stored = db.prepare('SELECT idempotency_key FROM ops').all();
    db.close();
    expect(stored).toEqual([{ idempotency_key: keys[0] }]);
    expect(keys[1]).toBe(keys[0]);
  });

  it('completes from the stored result when killed during the model call after a completed write', async () => {
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' }]), {
      kind: 'stream',
      chunks: [sse({ choices: [{ index: 0, delta: { content: 'Sav' } }] })],
      then: 'stall',
    });
    const dir = temp.path();
    const first = start(dir);
    await first.waitFor((e) => e['type'] === 'ready');
    first.send('Note: buy milk');
    await fake.whenRequests(2);
    first.kill('SIGKILL');
    await first.exited;
    fake.enqueue(chatText('Saved your note.'));
    const again = await resumeAfterRestart(start(dir));
    expect(await again.waitFor(isReply)).toMatchObject({ text: 'Saved your note.' });
    expect(target.requests).toHaveLength(1);
    const lastRequest = fake.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] };
    expect(lastRequest.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'w1', content: 'ok' });
  });

  it("keeps the request of a turn killed right after its admission: resume sends the model the user's message", async () => {
    const dir = join(temp.path(), 'admitted');
    const first = start(dir, 'after_admission');
    await first.waitFor((e) => e['type'] === 'ready');
    first.send('Note: buy milk');
    expect(await first.exited).toBeNull();
    expect(fake.requests).toHaveLength(0);

    fake.enqueue(chatText('Noted: buy milk.'));
    const again = await resumeAfterRestart(start(dir));
    expect(await again.waitFor(isReply)).toMatchObject({ text: 'Noted: buy milk.' });
    const request = fake.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    expect(request.messages.at(-1)).toEqual({ role: 'user', content: '[console-user]: Note: buy milk' });
  });

  it('prints a reply stored just before a kill once, at the next start, without asking the model or the tool again', async () => {
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' }]), chatText('Your note is saved.'));
    const dir = join(temp.path(), 'completed');
    const first = start(dir, 'after_completion');
    await first.waitFor((e) => e['type'] === 'ready');
    first.send('Note: buy milk');
    expect(await first.exited).toBeNull();
    expect(first.events.filter(isReply)).toEqual([]);

    const again = start(dir);
    expect(await again.waitFor(isReply)).toMatchObject({ text: 'Your note is saved.' });
    again.endInput();
    expect(await again.exited).toBe(0);
    expect(again.events.filter(isReply)).toHaveLength(1);
    expect(again.events.filter(isNotice('interrupted'))).toEqual([]);
    expect(fake.requests).toHaveLength(2);
    expect(target.requests).toHaveLength(1);

    const third = start(dir);
    await third.waitFor((e) => e['type'] === 'ready');
    third.endInput();
    expect(await third.exited).toBe(0);
    expect(third.events.filter(isReply)).toEqual([]);
  });

  it('reaches the same reply after a kill at each fault point from intent recorded (after_wi1) to the final reply, never repeating a started write', async () => {
    const REPLY = 'Your note is saved.';
    const points = ['after_wi1', 'after_wi2', 'after_tool', 'after_wi3', 'after_wi4', 'after_deadline:2', 'after_final_reply'];
    let passed = 0;
    for (const point of points) {
      fake.reset();
      target.requests.length = 0;
      fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' }]), chatText(REPLY));
      const dir = join(temp.path(), point.replace(':', '-'));
      const first = start(dir, point);
      await first.waitFor((e) => e['type'] === 'ready');
      first.send('Note: buy milk');
      expect(await first.exited, point).toBeNull();
      if (fake.requests.length < 2) fake.enqueue(chatText(REPLY));
      const again = await resumeAfterRestart(start(dir));
      const writeStarted = point === 'after_wi2' || point === 'after_tool';
      if (writeStarted) {
        await again.waitFor(isNotice('manual_resolution'));
      } else {
        expect(await again.waitFor(isReply), point).toMatchObject({ text: REPLY });
        const db = new BetterSqlite3(join(dir, 'data/turn_state/turns.sqlite3'), { readonly: true });
        const ops = db.prepare('SELECT state FROM ops').all() as { state: string }[];
        db.close();
        expect(ops, point).toEqual([{ state: 'APPLIED' }]);
      }
      expect(target.requests.length, point).toBeLessThanOrEqual(1);
      again.endInput();
      await again.exited;
      passed += 1;
    }
    expect(passed).toBe(points.length);
  });
});
