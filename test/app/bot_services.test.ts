import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openBotServices, type BotServices } from '../../src/app/bot_services.js';
import { configSchema } from '../../src/app/config_schema.js';
import { loadHistory, SUMMARY_PREFIX } from '../../src/conversation/history/history_policy.js';
import { ManualClock } from '../support/manual_clock.js';
import { NO_SECRETS } from '../../src/core/secret_values.js';
import type { MemoryStore } from '../../src/turn_state/memory_store.js';
import { useTempDir } from '../support/temp_dir.js';
import { damageTreeOf, openTestStoreFile } from '../support/store_file.js';
import { OtlpReceiver } from '../support/otlp_receiver.js';
import { admissionFor } from '../support/turn_store.js';
import { openTracer } from '../../src/app/telemetry/otel_tracer.js';
import { telemetrySection } from '../../src/app/telemetry/telemetry_settings.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/previous_layout', import.meta.url));
const OLD_FILES = ['data/history/history.sqlite3', 'data/memory/memory.sqlite3'];

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly file?: string;
  readonly component?: string;
}

const WARN = 40;
const text = (role: 'user' | 'assistant', body: string) => ({ role, content: [{ type: 'text', text: body }] });
const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

function requireMemory(services: BotServices): MemoryStore {
  if (services.memory === undefined) throw new Error('memory tools are off');
  return services.memory;
}

describe('the bot services open one store file', () => {
  const temp = useTempDir();
  const opened: BotServices[] = [];
  afterEach(async () => {
    for (const services of opened.splice(0)) await services.close();
  });

  async function open(settings: Record<string, unknown> = {}): Promise<{ services: BotServices; logs: LogLine[] }> {
    const logs: LogLine[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line) as LogLine) });
    const services = await openBotServices(configSchema.parse(settings), temp.path(), new ManualClock(), logger, NO_SECRETS);
    opened.push(services);
    return { services, logs };
  }

  it('imports the previous layout’s history and memory files once, leaving them untouched', async () => {
    cpSync(FIXTURE, temp.path(), { recursive: true });
    const before = OLD_FILES.map((file) => digest(join(temp.path(), file)));
    const listings = ['data/history', 'data/memory'].map((dir) => readdirSync(join(temp.path(), dir)));

    const { services, logs } = await open();

    expect(await loadHistory(services.history, 'console:c1')).toEqual({
      messages: [text('user', `${SUMMARY_PREFIX}Ada introduced herself and asked about arithmetic.`), text('assistant', 'Four.'), text('user', 'And three plus three?'), text('assistant', 'Six.')],
      revision: 7,
    });
    expect(await loadHistory(services.history, 'discord:42')).toEqual({ messages: [text('user', 'Ping'), text('assistant', 'Pong')], revision: 2 });
    const memory = requireMemory(services);
    expect((await memory.recall({ scope: 'user', ownerId: 'discord:ada', limit: 10 })).notes.map((note) => note.text)).toEqual(['Likes Straße names', 'Prefers metric units']);
    expect((await memory.recall({ scope: 'channel', ownerId: 'discord:42', query: 'STAND', limit: 10 })).notes).toEqual([{ text: 'Stand-up is at 10:00', createdAt: Date.UTC(2026, 0, 15, 9, 12) }]);
    expect((await memory.remember({ scope: 'user', ownerId: 'discord:ada', text: 'again', key: 'k1' })).kind).toBe('already_stored');
    const imported = logs.filter((line) => line.msg.startsWith('imported'));
    expect(imported.map((line) => line.file)).toEqual(OLD_FILES.map((file) => join(temp.path(), file)));
    for (const line of imported) expect(line.msg).toMatch(new RegExp(`from ${line.file ?? ''} into the store file; the old file was left untouched and can be deleted$`));
    expect(await services.history.append('console:c1', { role: 'user', text: 'And four plus four?' })).toBe(8);
    await services.close();

    expect(OLD_FILES.map((file) => digest(join(temp.path(), file)))).toEqual(before);
    expect(['data/history', 'data/memory'].map((dir) => readdirSync(join(temp.path(), dir)))).toEqual(listings);

    const again = await open();
    expect(again.logs.filter((line) => line.msg.startsWith('imported'))).toEqual([]);
    expect((await loadHistory(again.services.history, 'console:c1')).messages).toHaveLength(5);
    expect(await requireMemory(again.services).recall({ scope: 'user', ownerId: 'discord:ada', limit: 10 })).toMatchObject({
      notes: [{ text: 'Likes Straße names' }, { text: 'Prefers metric units' }],
      more: false,
    });
  });

  it('keeps a channel the store already has when an old file names it too, and imports a file that appears later', async () => {
    const first = await open();
    await first.services.history.append('console:c1', { role: 'user', text: 'kept' });
    await first.services.close();
    cpSync(FIXTURE, temp.path(), { recursive: true });

    const { services } = await open();

    expect(await loadHistory(services.history, 'console:c1')).toEqual({ messages: [text('user', 'kept')], revision: 1 });
    expect((await loadHistory(services.history, 'discord:42')).revision).toBe(2);
  });

  it('skips an old file it cannot read, says so, and tries again at the next start', async () => {
    cpSync(FIXTURE, temp.path(), { recursive: true });
    writeFileSync(join(temp.path(), OLD_FILES[0] ?? ''), 'not a database');

    const { services, logs } = await open();

    expect(logs.some((line) => line.level === WARN && line.msg.startsWith('the previous history file could not be read'))).toBe(true);
    expect((await loadHistory(services.history, 'console:c1')).revision).toBe(0);
    expect(await requireMemory(services).recall({ scope: 'user', ownerId: 'discord:ada', limit: 10 })).toMatchObject({ notes: [{ text: 'Likes Straße names' }, { text: 'Prefers metric units' }] });
    await services.close();
    cpSync(join(FIXTURE, OLD_FILES[0] ?? ''), join(temp.path(), OLD_FILES[0] ?? ''));

    const again = await open();
    expect((await loadHistory(again.services.history, 'console:c1')).revision).toBe(7);
    expect(again.logs.filter((line) => line.msg.startsWith('imported')).map((line) => line.file)).toEqual([join(temp.path(), OLD_FILES[0] ?? '')]);
  });

  it('skips an old file whose pages are damaged, naming the file and the cause in its log line, without a stack trace', async () => {
    cpSync(FIXTURE, temp.path(), { recursive: true });
    const historyFile = join(temp.path(), OLD_FILES[0] ?? '');
    damageTreeOf(historyFile, 'entries');

    const { services, logs } = await open();

    expect(services.store.durable).toBe(true);
    const warning = logs.find((line) => line.level === WARN && line.msg.startsWith('the previous history file could not be read'));
    expect(warning).toMatchObject({ file: historyFile, cause: expect.stringContaining('malformed') as unknown });
    expect(JSON.stringify(warning)).not.toMatch(/\\n\s+at /);
  });

  it('runs without durability when the store file’s pages are damaged, naming the file and the damage in one log line', async () => {
    const made = openTestStoreFile(join(temp.path(), 'made'));
    await made.close();
    const dbPath = join(temp.path(), 'data/turn_state/turns.sqlite3');
    cpSync(made.dbPath, dbPath);
    damageTreeOf(dbPath, 'turns_by_status');

    const { services, logs } = await open();

    expect(services.store.durable).toBe(false);
    const error = logs.find((line) => line.level === 50 && line.msg.startsWith('the store could not open'));
    expect(error).toMatchObject({ file: dbPath, cause: expect.stringMatching(/^the turn store is damaged: /) as unknown });
  });

  it('imports nothing, and still opens the store file, when an old file holds what the store refuses', async () => {
    cpSync(FIXTURE, temp.path(), { recursive: true });
    const memoryFile = join(temp.path(), OLD_FILES[1] ?? '');
    rmSync(memoryFile);
    const odd = new BetterSqlite3(memoryFile);
    odd.exec(
      "CREATE TABLE notes (id INTEGER PRIMARY KEY, idempotency_key TEXT, scope TEXT, owner_id TEXT, text TEXT, created_at INTEGER); INSERT INTO notes VALUES (1, 'k', 'everyone', 'x', 'odd', 0)",
    );
    odd.pragma('user_version = 1');
    odd.close();

    const { services, logs } = await open();

    expect(services.store.durable).toBe(true);
    expect((await loadHistory(services.history, 'console:c1')).revision).toBe(0);
    expect(logs.some((line) => line.level === WARN && line.msg.startsWith("the previous layout's files could not be imported"))).toBe(true);
  });

  it('keeps history and notes in memory, loudly, when the store is off: nothing is written to disk', async () => {
    cpSync(FIXTURE, temp.path(), { recursive: true });

    const { services, logs } = await open({ turn_state: { enabled: false } });

    expect(services.store.durable).toBe(false);
    expect(await services.history.append('console:console', { role: 'user', text: 'hello' })).toBe(1);
    expect((await loadHistory(services.history, 'console:console')).messages).toEqual([text('user', 'hello')]);
    expect((await loadHistory(services.history, 'console:c1')).revision).toBe(0);
    expect((await requireMemory(services).remember({ scope: 'user', ownerId: 'ada', text: 'note', key: 'k9' })).kind).toBe('stored');
    expect(logs.filter((line) => line.level === WARN && line.component === 'turn_state').map((line) => line.msg)).toEqual([
      'turn_state.enabled is false: turns are not durable (an interrupted reply is lost), and history and memory notes last only until the bot stops',
      'conversation history and memory notes are kept in memory only',
    ]);
    expect(existsSync(join(temp.path(), 'data', 'turn_state'))).toBe(false);
  });

  it('keeps history and notes in memory when the store file cannot open, and still answers', async () => {
    writeFileSync(join(temp.path(), 'blocker'), 'x');

    const { services, logs } = await open({ turn_state: { db_path: 'blocker/turns.sqlite3' }, tools: { builtin: [] } });

    expect(services.store.durable).toBe(false);
    expect(services.memory).toBeUndefined();
    expect(await services.history.append('console:console', { role: 'user', text: 'hello' })).toBe(1);
    expect(logs.map((line) => line.msg)).toEqual(
      expect.arrayContaining([
        'the store file could not be locked: a second bot process on it would not be refused',
        'the store could not open: turns are NOT durable, and history and memory notes are lost at restart, until this is fixed',
        'conversation history and memory notes are kept in memory only',
      ]),
    );
  });

  it('records in the trace of a run a restart cut off what the start-up sweep found of it', async () => {
    const collector = await OtlpReceiver.start();
    try {
      const before = openTestStoreFile(temp.path());
      const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const admission = await before.turns.admit({ ...admissionFor('m-1'), trace: traceparent });
      if (admission.disposition !== 'admitted') throw new Error(`expected admission, got ${admission.disposition}`);
      await before.turns.recordModelTurn(admission.lease, {
        step: 1,
        assistant: { role: 'assistant', content: [{ type: 'text', text: 'saving' }] },
        intents: [{ toolCallId: 'w1', toolName: 'save_note', input: { text: 'milk' }, effect: 'write' }],
      });
      await before.turns.moveOp(admission.lease, { turnId: admission.lease.turnId, step: 1, toolCallId: 'w1' }, { to: 'RUNNING' });
      await before.close();
      const settings = telemetrySection.parse({ otlp_endpoint: collector.url });
      const tracer = openTracer({ ...settings, otlp_endpoint: collector.url }, NO_SECRETS, pino({ level: 'silent' }));

      const services = await openBotServices(configSchema.parse({}), temp.path(), new ManualClock(), pino({ level: 'silent' }), NO_SECRETS, { tracer });
      opened.push(services);
      await tracer.shutdown();

      const [found] = await collector.waitFor((spans) => spans.length === 1);
      expect(found).toMatchObject({ name: 'holdfast.turn.interrupted', traceId: '0af7651916cd43dd8448eb211c80319c', parentSpanId: 'b7ad6b7169203331' });
      expect(found?.events).toEqual([{ name: 'ledger.uncertain', attributes: { 'holdfast.ledger.state': 'OUTCOME_UNKNOWN' } }]);
      expect(services.interrupted.map((turn) => turn.traces)).toEqual([[traceparent]]);
    } finally {
      await collector.close();
    }
  });
});
