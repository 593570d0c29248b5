import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/app/config_schema.js';
import { ManualClock } from '../support/manual_clock.js';
import type { JsonObject } from '../../src/llm/protocol.js';
import { createMemoryTools } from '../../src/tools/memory_tools.js';
import { TURN_STORE_MIGRATIONS } from '../../src/turn_state/sqlite/migrations.js';
import { runTool } from '../../src/tools/run_tool.js';
import type { Tool, ToolContext, ToolOutcome } from '../../src/tools/tool.js';
import { openTestStoreFile, type TestStoreFile } from '../support/store_file.js';
import { useTempDir } from '../support/temp_dir.js';

const DAY = 86_400_000;
const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

interface Caller {
  readonly source?: string;
  readonly requesterId?: string;
  readonly channelId?: string;
  readonly key?: string;
}

let keys = 0;

function contextFor(caller: Caller = {}): ToolContext {
  return {
    signal: new AbortController().signal,
    idempotencyKey: caller.key ?? `op-${++keys}`,
    requesterId: caller.requesterId ?? 'alice',
    channel: { source: caller.source ?? 'console', channelId: caller.channelId ?? 'c' },
    logger: pino({ level: 'silent' }),
  };
}

/** The text of a result; fails the test on any other outcome. */
function resultText(outcome: ToolOutcome): string {
  if (outcome.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  return outcome.text;
}

/** The notes a recall listed, in order, as `date — text`. */
function listed(outcome: ToolOutcome): string[] {
  return resultText(outcome)
    .split('\n')
    .flatMap((line) => {
      const match = /^\d+\. (\d{4}-\d{2}-\d{2} — .*)$/.exec(line);
      return match?.[1] === undefined ? [] : [match[1]];
    });
}

/** The note texts a recall listed, most recent first. */
const notesIn = (outcome: ToolOutcome): string[] => listed(outcome).map((line) => line.slice('2026-01-01 — '.length));

describe('memory tools', () => {
  const temp = useTempDir();
  const opened: TestStoreFile[] = [];
  afterEach(async () => {
    for (const file of opened.splice(0)) await file.close();
  });

  function setUp(recallLimit = 20) {
    const clock = new ManualClock();
    const settings = configSchema.parse({}).tools.memory;
    const open = () => {
      const file = openTestStoreFile(temp.path(), clock);
      opened.push(file);
      const [remember, recall] = createMemoryTools(file.memory, { ...settings, recall_limit: recallLimit });
      return { file, remember, recall };
    };
    const tools = open();
    const call = (tool: Tool, input: JsonObject, caller?: Caller) => runTool(tool, input, contextFor(caller), clock);
    return {
      clock,
      dbPath: tools.file.dbPath,
      store: () => tools.file.memory,
      reopen: async () => {
        await tools.file.close();
        Object.assign(tools, open());
      },
      remember: (input: JsonObject, caller?: Caller) => call(tools.remember, input, caller),
      recall: (input: JsonObject = {}, caller?: Caller) => call(tools.recall, input, caller),
    };
  }

  it('remembers a note and recalls it with the date it was stored', async () => {
    const { remember, recall } = setUp();
    expect(resultText(await remember({ text: 'Prefers metric units' }))).toContain('Remembered for you: "Prefers metric units"');
    expect(listed(await recall())).toEqual(['2026-01-01 — Prefers metric units']);
  });

  it('says so when there is nothing to recall', async () => {
    const { recall } = setUp();
    expect(resultText(await recall())).toBe('No notes are kept for you.');
    expect(resultText(await recall({ scope: 'channel', query: 'tea' }))).toBe('No notes are kept for this channel matching "tea".');
  });

  it('stores once when the same call is sent twice with its idempotency key, and again under a new key', async () => {
    const { remember, recall } = setUp();
    expect(resultText(await remember({ text: 'Likes tea' }, { key: 'op-same' }))).toMatch(/^Remembered/);
    const again = await remember({ text: 'Likes tea' }, { key: 'op-same' });
    expect(resultText(again)).toContain('Already remembered for you');
    expect(resultText(again)).toContain('"Likes tea"');
    expect(notesIn(await recall())).toEqual(['Likes tea']);

    expect(resultText(await remember({ text: 'Likes tea' }, { key: 'op-other' }))).toMatch(/^Remembered/);
    expect(notesIn(await recall())).toEqual(['Likes tea', 'Likes tea']);
  });

  it('keeps user notes private to the user', async () => {
    const { remember, recall } = setUp();
    await remember({ text: 'Alice is allergic to nuts' }, { requesterId: 'alice' });
    await remember({ text: 'Bob supports the other team', scope: 'user' }, { requesterId: 'bob' });
    expect(notesIn(await recall({}, { requesterId: 'alice' }))).toEqual(['Alice is allergic to nuts']);
    expect(notesIn(await recall({}, { requesterId: 'bob', channelId: 'elsewhere' }))).toEqual(['Bob supports the other team']);
    expect(notesIn(await recall({}, { requesterId: 'carol' }))).toEqual([]);
    expect(notesIn(await recall({ scope: 'channel' }, { requesterId: 'alice' }))).toEqual([]);
  });

  it('keeps a user’s notes apart per transport: the same id on the console and on Discord is not the same person', async () => {
    const { remember, recall } = setUp();
    await remember({ text: 'Console Alice likes tea' }, { source: 'console', requesterId: '42' });
    await remember({ text: 'Discord Alice likes coffee' }, { source: 'discord', requesterId: '42' });
    expect(notesIn(await recall({}, { source: 'console', requesterId: '42' }))).toEqual(['Console Alice likes tea']);
    expect(notesIn(await recall({}, { source: 'discord', requesterId: '42' }))).toEqual(['Discord Alice likes coffee']);
  });

  it('after an upgrade, gives the console user’s earlier notes to the console and every other user’s to Discord', async () => {
    const dbPath = join(temp.path(), 'data', 'turn_state', 'turns.sqlite3');
    mkdirSync(dirname(dbPath), { recursive: true });
    const old = new BetterSqlite3(dbPath);
    TURN_STORE_MIGRATIONS.slice(0, 5).forEach((sql, index) => {
      old.exec(sql);
      old.pragma(`user_version = ${index + 1}`);
    });
    const note = old.prepare('INSERT INTO memory_notes (idempotency_key, scope, owner_id, text, created_at) VALUES (?, ?, ?, ?, 0)');
    note.run('k1', 'user', 'console-user', 'Console note');
    note.run('k2', 'user', '1100000000000000042', 'Discord note');
    note.run('k3', 'channel', 'discord:team', 'Channel note');
    old.close();
    const { recall } = setUp();
    const console = { source: 'console', requesterId: 'console-user' };
    const discord = { source: 'discord', requesterId: '1100000000000000042', channelId: 'team' };
    expect(notesIn(await recall({}, console))).toEqual(['Console note']);
    expect(notesIn(await recall({}, discord))).toEqual(['Discord note']);
    expect(notesIn(await recall({}, { ...console, requesterId: '1100000000000000042' }))).toEqual([]);
    expect(notesIn(await recall({ scope: 'channel' }, discord))).toEqual(['Channel note']);
  });

  it('shares channel notes within the channel and not across channels', async () => {
    const { remember, recall } = setUp();
    const said = await remember({ text: 'Standup is at 10:00', scope: 'channel' }, { requesterId: 'alice', channelId: 'team' });
    expect(resultText(said)).toContain('Remembered for this channel');
    expect(notesIn(await recall({ scope: 'channel' }, { requesterId: 'bob', channelId: 'team' }))).toEqual(['Standup is at 10:00']);
    expect(notesIn(await recall({ scope: 'channel' }, { requesterId: 'alice', channelId: 'other' }))).toEqual([]);
    expect(notesIn(await recall({}, { requesterId: 'alice', channelId: 'team' }))).toEqual([]);
  });

  it('filters by a case-insensitive substring, taking % and _ literally', async () => {
    const { remember, recall } = setUp();
    for (const text of ['Drinks GREEN tea', 'Green is their colour', 'Discount is 50% off', 'Discount is 50 pounds', 'Uses snake_case', 'Uses snakeXcase', 'Émilie runs the STRASSE café'])
      await remember({ text });
    expect(notesIn(await recall({ query: 'green' }))).toEqual(['Green is their colour', 'Drinks GREEN tea']);
    expect(notesIn(await recall({ query: '50%' }))).toEqual(['Discount is 50% off']);
    expect(notesIn(await recall({ query: 'snake_case' }))).toEqual(['Uses snake_case']);
    expect(notesIn(await recall({ query: '%' }))).toEqual(['Discount is 50% off']);
    expect(notesIn(await recall({ query: 'émilie runs the straße' }))).toEqual(['Émilie runs the STRASSE café']);
    expect(resultText(await recall({ query: 'coffee' }))).toBe('No notes are kept for you matching "coffee".');
  });

  it('lists the most recent first, at most recall_limit, and says older ones exist', async () => {
    const { clock, remember, recall } = setUp(2);
    for (const text of ['first', 'second', 'third']) {
      await remember({ text });
      await clock.advance(DAY);
    }
    const outcome = await recall();
    expect(listed(outcome)).toEqual(['2026-01-03 — third', '2026-01-02 — second']);
    expect(resultText(outcome)).toContain('Older notes exist');
    expect(listed(await recall({ query: 'first' }))).toEqual(['2026-01-01 — first']);
  });

  it('keeps the order notes were stored in when the wall clock is set back', async () => {
    const { clock, remember, recall } = setUp();
    await clock.advance(DAY);
    await remember({ text: 'before the correction' });
    clock.setWallTime(Date.UTC(2025, 11, 31));
    await remember({ text: 'after the correction' });
    expect(listed(await recall())).toEqual(['2025-12-31 — after the correction', '2026-01-02 — before the correction']);
  });

  it('refuses a note longer than 2,000 characters and keeps one of exactly 2,000', async () => {
    const { remember, recall } = setUp();
    const tooLong = await remember({ text: 'x'.repeat(2001) });
    expect(tooLong.kind).toBe('failed');
    expect(notesIn(await recall())).toEqual([]);
    expect(resultText(await remember({ text: 'y'.repeat(2000) }))).toMatch(/^Remembered/);
    expect(resultText(await remember({ text: '🍵'.repeat(2000) }))).toMatch(/^Remembered/);
    expect(notesIn(await recall()).map((note) => [...note].length)).toEqual([2000, 2000]);
  });

  it('refuses a note that is too long even when it reaches the store directly', async () => {
    const store = setUp().store();
    expect(await store.remember({ scope: 'user', ownerId: 'alice', text: 'z'.repeat(2001), key: 'k' })).toEqual({ kind: 'too_long', length: 2001, max: 2000 });
    expect((await store.recall({ scope: 'user', ownerId: 'alice', limit: 5 })).notes).toEqual([]);
  });

  it('refuses invalid input before storing anything', async () => {
    const { remember, recall } = setUp();
    for (const input of [{ text: 'x', scope: 'global' }, { text: '' }, {}, { text: 'x', extra: true }, { text: 42 }]) {
      const outcome = await remember(input);
      expect(outcome.kind).toBe('failed');
      if (outcome.kind === 'failed') expect(outcome.error).toContain('invalid input for remember');
    }
    expect((await recall({ scope: 'global' })).kind).toBe('failed');
    expect((await remember({ text: '   ' })).kind).toBe('failed');
    expect(notesIn(await recall())).toEqual([]);
  });

  it('keeps notes across closing and reopening the store', async () => {
    const { remember, recall, reopen } = setUp();
    await remember({ text: 'Survives a restart' }, { key: 'op-restart' });
    await reopen();
    expect(notesIn(await recall())).toEqual(['Survives a restart']);
    expect(resultText(await remember({ text: 'Survives a restart' }, { key: 'op-restart' }))).toContain('Already remembered');
    expect(notesIn(await recall())).toEqual(['Survives a restart']);
  });

  it('stores nothing when the call was stopped before it ran', async () => {
    const { clock, remember, recall, store } = setUp();
    const stopped = new AbortController();
    stopped.abort();
    const [rememberTool] = createMemoryTools(store(), configSchema.parse({}).tools.memory);
    const outcome = await runTool(rememberTool, { text: 'never kept' }, { ...contextFor(), signal: stopped.signal }, clock);
    expect(outcome.kind).toBe('failed');
    expect(notesIn(await recall())).toEqual([]);
    expect(resultText(await remember({ text: 'kept' }))).toMatch(/^Remembered/);
  });

  it('makes the database file 0600 and leaves the mode of the directory it found', async () => {
    const dir = join(temp.path(), 'data', 'turn_state');
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    const { dbPath, remember } = setUp();
    await remember({ text: 'a secret' });
    expect(mode(dir)).toBe('755');
    for (const file of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) expect(`${file}:${mode(file)}`).toBe(`${file}:600`);
  });
});
