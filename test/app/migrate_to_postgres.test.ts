import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { BlobStore } from '../../src/turn_state/blob_store.js';
import { pgKeptStoresOn } from '../../src/turn_state/postgres/open_pg_store.js';
import { openPgPool, type PgConnection } from '../../src/turn_state/postgres/pg_pool.js';
import { COPIED_TABLES } from '../../src/turn_state/postgres/sqlite_to_pg_copy.js';
import { lockStoreFile } from '../../src/turn_state/sqlite/store_lock.js';
import { ManualClock } from '../support/manual_clock.js';
import { approvalTurn, parkedTurn, runCliIn, storeIn, storePathIn, turnWithCalls } from '../support/operator_cli.js';
import { freshPgConnection, onSchema } from '../support/postgres_schema.js';
import { useTempDir } from '../support/temp_dir.js';

const CHANNEL = 'console:channel-1';
const DOT_PNG = Buffer.from('a tiny png, as far as this test cares').toString('base64');

/** Each table the two stores share, and the order that lists its rows the same way in both. */
const TABLES: Readonly<Record<string, string>> = {
  turns: 'turn_id',
  transcript: 'turn_id, seq',
  checkpoints: 'turn_id, seq',
  ops: 'turn_id, step, tool_call_id',
  op_moves: 'turn_id, step, tool_call_id, state',
  blob_refs: 'turn_id, digest, owner',
  replies: 'turn_id',
  inbox: 'id',
  history_channels: 'channel',
  history_entries: 'id',
  history_blob_refs: 'entry_id, digest',
  memory_notes: 'id',
  channel_models: 'channel',
  approval_rules: 'source, channel_id, tool_name',
  usage_turns: 'source, channel_id, message_id',
  usage_calls: 'id',
  usage_days: 'day, source, user_id, channel_id, server_id, model',
};

/**
 * What of a SQLite store stays behind when it is copied, on purpose: every other table and column
 * is in COPIED_TABLES, so that a table or column added to SQLite's schema later is not lost by
 * a migration unnoticed.
 */
const LEFT_BEHIND: { readonly tables: readonly string[]; readonly columns: Readonly<Record<string, readonly string[]>> } = {
  tables: [
    // The one row a readiness probe writes to prove the file takes a write now; it says nothing of the installation.
    'store_probe',
    // The record of the import of the layout before the store: there is nothing left to import into PostgreSQL.
    'previous_layout_imports',
  ],
  // No process owns the turns of a stopped installation.
  columns: { turns: ['owner_instance'] },
};

const SUSPENDED_MESSAGE = { source: 'console', channelId: 'channel-1', messageId: 'm-suspended' };

/**
 * A stopped bot's store in `cwd`, written by the store's own code with every kind of row: a
 * completed turn and its reply, a suspended turn with its transcript, checkpoints and calls in
 * several states (one result and one image kept as blobs), a turn awaiting resolution with one
 * verdict given, a turn awaiting approval with one call approved ("always allow here") and one
 * still asked in a message, a message waiting in the inbox, history with an attachment, an
 * author's name and a summary, memory notes, the models admins chose for two channels, and usage:
 * a turn counted with a priced call and one that reported no tokens, and a message refused by a
 * limit.
 */
async function stoppedStoreIn(cwd: string, clock: ManualClock): Promise<void> {
  const store = storeIn(cwd, clock);
  const { turns, operator, history, memory, models, usage } = store;

  const done = await turnWithCalls(turns, 'm-done', [{ id: 'look', effect: 'read', tool: 'search' }]);
  await turns.moveOp(done, { turnId: done.turnId, step: 1, toolCallId: 'look' }, { to: 'RUNNING' });
  await turns.moveOp(done, { turnId: done.turnId, step: 1, toolCallId: 'look' }, { to: 'APPLIED', result: 'found it' });
  await turns.complete(done, 'Here it is.');
  await turns.recordReplyDelivery(done.turnId, { kind: 'delivered', partsDelivered: 1 });
  await clock.advance(1_000);

  const suspended = await turnWithCalls(turns, 'm-suspended', [{ id: 'big' }, { id: 'broken' }, { id: 'later', effect: 'idempotent' }]);
  const key = (toolCallId: string) => ({ turnId: suspended.turnId, step: 1, toolCallId });
  await turns.moveOp(suspended, key('big'), { to: 'RUNNING' });
  await turns.moveOp(suspended, key('big'), { to: 'APPLIED', result: 'r'.repeat(40_000) });
  await turns.moveOp(suspended, key('broken'), { to: 'RUNNING' });
  await turns.moveOp(suspended, key('broken'), { to: 'DEFINITELY_FAILED', error: 'the service said no' });
  await turns.checkpoint(suspended, {
    append: [
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'big', isError: false, content: 'r'.repeat(40_000) }] },
      { role: 'user', content: [{ type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: DOT_PNG } }] },
    ],
    state: { step: 2 },
    progressed: true,
  });
  await turns.suspend(suspended, 'the model is overloaded');
  await clock.advance(1_000);

  const parked = await parkedTurn(turns, 'm-parked', [{ id: 'w1' }, { id: 'w2' }]);
  await operator.resolveCall({ call: { turnId: parked, step: 1, toolCallId: 'w1' }, verdict: 'applied', text: 'ticket 42', by: 'cli:ada' });
  const asking = await approvalTurn(turns, 'm-asking', [{ id: 'a1', tool: 'send_mail' }, { id: 'a2' }]);
  await turns.noteApprovalMessage({ turnId: asking, step: 1, toolCallId: 'a2' }, 'asking-message');
  await turns.answerApproval({ call: { turnId: asking, step: 1, toolCallId: 'a1' }, verdict: 'approved', by: 'discord:ada', note: 'fine here', allowHere: true });
  await turns.acceptInbound({ identity: { source: 'console', channelId: 'channel-1', messageId: 'm-queued' }, message: { text: 'still waiting' } });

  const attachments = [
    { kind: 'image', name: 'dot.png', mediaType: 'image/png', data: DOT_PNG },
    { kind: 'text', name: 'notes.txt', text: 'buy milk' },
  ] as const;
  await history.append(CHANNEL, { role: 'user', text: 'first', authorId: 'user-1', messageId: 'h1' });
  await history.append(CHANNEL, { role: 'assistant', text: 'noted' });
  await history.append(CHANNEL, { role: 'user', text: 'see these', authorId: 'user-1', authorName: 'Ada', messageId: 'h2', attachments });
  const [first, second] = (await history.read(CHANNEL)).entries;
  await history.compact(CHANNEL, { throughId: second?.id ?? 0, count: 2, summaryId: undefined, summary: `${first?.text ?? ''}, noted` });
  await history.append('discord:42', { role: 'user', text: 'elsewhere', messageId: 'h3' });
  await memory.remember({ scope: 'user', ownerId: 'console:user-1', text: 'Likes green tea', key: 'note-1' });
  await memory.remember({ scope: 'channel', ownerId: CHANNEL, text: 'Meets on Mondays', key: 'note-2' });
  await models.choose(CHANNEL, 'fast-model', 'console:console-user');
  await models.choose('discord:42', 'big-model', 'discord:ada');

  const owner = { source: 'console', userId: 'user-1', channelId: 'channel-1', serverId: 'server-1' };
  await usage.admit({ identity: SUSPENDED_MESSAGE, owner, limits: [] });
  await usage.record(SUSPENDED_MESSAGE, 'user-1', [
    { model: 'fast-model', inputTokens: 1200, outputTokens: 80, cachedInputTokens: 1000, reasoningTokens: 20, cost: 0.0038 },
    { model: 'local-model', inputTokens: null, outputTokens: null, cost: null },
  ]);
  const refused = await usage.admit({ identity: { ...SUSPENDED_MESSAGE, messageId: 'm-refused' }, owner, limits: [{ scope: 'user', kind: 'turns_per_hour', max: 1 }] });
  if (refused.kind !== 'refused') throw new Error('expected the second message to be refused by the limit');
  await store.close();
}

/** Every row of every shared table, and every blob, of the SQLite store at `dbPath`; a turn's rowid is its `admitted`, and no process owns it. */
function sqliteContents(dbPath: string): { tables: Record<string, unknown[]>; blobs: Map<string, Buffer> } {
  const db = new BetterSqlite3(dbPath, { readonly: true });
  try {
    const tables: Record<string, unknown[]> = {};
    for (const [table, order] of Object.entries(TABLES)) {
      tables[table] = db.prepare(`SELECT * ${table === 'turns' ? ', rowid AS admitted, NULL AS owner_instance ' : ''}FROM ${table} ORDER BY ${order}`).all();
    }
    const blobs = BlobStore.open(join(dbPath, '..', 'blobs'));
    return { tables, blobs: new Map(blobs.list().map((digest) => [digest, blobs.get(digest)])) };
  } finally {
    db.close();
  }
}

/** The same of the PostgreSQL store; turns are owned by no process. */
async function postgresContents(pool: pg.Pool): Promise<{ tables: Record<string, unknown[]>; blobs: Map<string, Buffer> }> {
  const tables: Record<string, unknown[]> = {};
  for (const [table, order] of Object.entries(TABLES)) {
    tables[table] = (await pool.query(`SELECT * FROM ${table} ORDER BY ${order}`)).rows;
  }
  const { rows } = await pool.query<{ digest: string; bytes: Buffer }>('SELECT digest, bytes FROM blobs');
  return { tables, blobs: new Map(rows.map((row) => [row.digest, row.bytes])) };
}

const fileDigest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('holdfast migrate --to postgres', () => {
  const temp = useTempDir();
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.end()));
  });

  function poolOn(connection: PgConnection): pg.Pool {
    const pool = openPgPool(connection);
    pools.push(pool);
    return pool;
  }

  function configFor(connection: PgConnection): string {
    return temp.write('config.yml', `turn_state:\n  postgres:\n    url: ${connection.url}\n    schema: ${connection.schema}\n`);
  }

  it('copies a stopped store into the empty schema with every row and blob as it was, prints the checked counts, and leaves the file alone', async () => {
    const clock = new ManualClock();
    await stoppedStoreIn(temp.path(), clock);
    const dbPath = storePathIn(temp.path());
    const before = sqliteContents(dbPath);
    const fileBefore = fileDigest(dbPath);
    const connection = freshPgConnection();

    const run = await runCliIn(temp.path(), ['migrate', '--to', 'postgres', '--config', configFor(connection)], { clock });

    const counts = [...Object.entries(before.tables).map(([table, rows]) => [table, rows.length] as const), ['blobs', before.blobs.size] as const];
    expect(counts.filter(([, count]) => count === 0)).toEqual([]);
    expect(run).toEqual({
      status: 0,
      stderr: '',
      stdout: [
        ...counts.map(([table, count]) => `${table.padEnd('history_blob_refs'.length)}  ${count}`),
        `Copied ${dbPath} into the PostgreSQL schema ${connection.schema}; every count matches the SQLite store. Set turn_state.backend to postgres to run the bot on it.`,
        '',
      ].join('\n'),
    });
    const pool = poolOn(connection);
    expect(await postgresContents(pool)).toEqual(before);
    expect(fileDigest(dbPath)).toBe(fileBefore);

    const history = pgKeptStoresOn(pool).history;
    const read = await history.read(CHANNEL);
    expect(read.entries.map((entry) => [entry.role, entry.text, entry.attachments?.map((attachment) => attachment.name)])).toEqual([
      ['summary', 'first, noted', undefined],
      ['user', 'see these', ['dot.png', 'notes.txt']],
    ]);
    expect(await history.append(CHANNEL, { role: 'assistant', text: 'a new entry' })).toBe(read.revision + 1);
    const entries = (await history.read(CHANNEL)).entries;
    expect(entries.at(-1)?.id).toBeGreaterThan(Math.max(...before.tables['history_entries']!.map((row) => (row as { id: number }).id)));
    const memory = pgKeptStoresOn(pool).memory;
    expect(await memory.remember({ scope: 'user', ownerId: 'console:user-1', text: 'Likes coffee', key: 'note-3' })).toMatchObject({ kind: 'stored' });
    expect((await memory.recall({ scope: 'user', ownerId: 'console:user-1', query: 'LIKES', limit: 5 })).notes.map((note) => note.text)).toEqual(['Likes coffee', 'Likes green tea']);
    expect(await pgKeptStoresOn(pool).models.chosen(CHANNEL)).toMatchObject({ model: 'fast-model', chosenBy: 'console:console-user' });

    const usage = pgKeptStoresOn(pool).usage;
    await usage.record(SUSPENDED_MESSAGE, 'user-1', [{ model: 'fast-model', inputTokens: 100, outputTokens: 10, cost: 0.001 }]);
    expect(await usage.turnSpent(SUSPENDED_MESSAGE)).toEqual({ tokens: 1200 + 80 + 100 + 10, cost: expect.closeTo(0.0048, 10) as number });
    const calls = (await pool.query<{ id: number }>('SELECT id FROM usage_calls ORDER BY id')).rows.map((row) => row.id);
    expect(calls.at(-1)).toBeGreaterThan(Math.max(...before.tables['usage_calls']!.map((row) => (row as { id: number }).id)));
  });

  it('refuses with status 3 to copy into a schema that already holds a store, changing nothing', async () => {
    const clock = new ManualClock();
    await stoppedStoreIn(temp.path(), clock);
    const connection = freshPgConnection();
    const config = configFor(connection);
    expect((await runCliIn(temp.path(), ['migrate', '--to', 'postgres', '--config', config], { clock })).status).toBe(0);
    const copied = await postgresContents(poolOn(connection));

    const again = await runCliIn(temp.path(), ['migrate', '--to', 'postgres', '--config', config], { clock });

    expect(again.status).toBe(3);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(
      new RegExp(`^holdfast: the PostgreSQL schema ${connection.schema} is not empty: it already holds rows \\(.*turns: 4, .*memory_notes: 2.*\\); migrate copies into an empty one only\\n$`),
    );
    expect(await postgresContents(poolOn(connection))).toEqual(copied);
  });

  it('refuses with status 3 while a bot holds the store, touching neither the file nor the database', async () => {
    const clock = new ManualClock();
    await stoppedStoreIn(temp.path(), clock);
    const dbPath = storePathIn(temp.path());
    const fileBefore = fileDigest(dbPath);
    const connection = freshPgConnection();
    const lock = lockStoreFile(dbPath, clock.now());
    let run;
    try {
      run = await runCliIn(temp.path(), ['migrate', '--to', 'postgres', '--config', configFor(connection)], { clock });
    } finally {
      lock.release();
    }

    expect(run.status).toBe(3);
    expect(run.stderr).toBe(
      `holdfast: the store ${dbPath} is in use by the bot process ${process.pid} on host ${hostname()}, since ` +
        `${new Date(clock.now()).toISOString()}; stop it first: only a stopped installation is copied\n`,
    );
    expect(fileDigest(dbPath)).toBe(fileBefore);
    expect(await onSchema(connection, 'SELECT schema_name FROM information_schema.schemata WHERE schema_name = $1', [connection.schema])).toEqual([]);
  });

  it('refuses with status 3 a store another version of the program left, which it would have to change to read', async () => {
    const clock = new ManualClock();
    await stoppedStoreIn(temp.path(), clock);
    const dbPath = storePathIn(temp.path());
    const db = new BetterSqlite3(dbPath);
    const current = db.pragma('user_version', { simple: true }) as number;
    db.pragma(`user_version = ${current - 1}`);
    db.close();
    const connection = freshPgConnection();

    const run = await runCliIn(temp.path(), ['migrate', '--to', 'postgres', '--config', configFor(connection)], { clock });

    expect(run).toEqual({
      status: 3,
      stdout: '',
      stderr: `holdfast: the store ${dbPath} is at schema version ${current - 1}, not this program's ${current}: start the bot of this version on it once, stop it, then migrate\n`,
    });
    expect(await onSchema(connection, 'SELECT schema_name FROM information_schema.schemata WHERE schema_name = $1', [connection.schema])).toEqual([]);
  });

  it('fails with status 1, naming the file, when the store file is not a database, and creates nothing', async () => {
    const dbPath = storePathIn(temp.path());
    mkdirSync(dirname(dbPath), { recursive: true });
    writeFileSync(dbPath, 'this is not a SQLite database, only some text that is long enough to be read as a header');
    const connection = freshPgConnection();

    const run = await runCliIn(temp.path(), ['migrate', '--to', 'postgres', '--config', configFor(connection)]);

    expect(run.status).toBe(1);
    expect(run.stderr).toContain(dbPath);
    expect(run.stderr).toContain('file is not a database');
    expect(await onSchema(connection, 'SELECT schema_name FROM information_schema.schemata WHERE schema_name = $1', [connection.schema])).toEqual([]);
  });

  it('leaves behind, of a SQLite store, only what is meant to stay: every other table and column is copied', async () => {
    await storeIn(temp.path(), new ManualClock()).close();
    const db = new BetterSqlite3(storePathIn(temp.path()), { readonly: true });
    let stored: Record<string, string[]>;
    try {
      const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all();
      stored = Object.fromEntries(tables.map(({ name }) => [name, (db.pragma(`table_info(${name})`) as { name: string }[]).map((column) => column.name)]));
    } finally {
      db.close();
    }

    const kept = Object.entries(stored)
      .filter(([table]) => !LEFT_BEHIND.tables.includes(table))
      .map(([table, columns]) => [table, columns.filter((column) => !(LEFT_BEHIND.columns[table] ?? []).includes(column)).sort()]);
    // A column SQLite reads under another name (a turn's rowid, its `admitted`) is no column of its own there.
    const copied = COPIED_TABLES.map((table) => [table.name, table.columns.filter((column) => table.sourceOf?.[column] === undefined).sort()]);
    expect(Object.fromEntries(copied)).toEqual(Object.fromEntries(kept));
    expect(LEFT_BEHIND.tables.filter((table) => stored[table] === undefined)).toEqual([]);
  });

  it('exits 2 without turn_state.postgres, without a store file, or without --to postgres', async () => {
    const clock = new ManualClock();
    const noStore = await runCliIn(temp.path(), ['migrate', '--to', 'postgres', '--config', configFor(freshPgConnection())], { clock });
    expect(noStore.status).toBe(2);
    expect(noStore.stderr).toMatch(/^holdfast: the store .*turns\.sqlite3 does not exist: there is nothing to copy/);

    await storeIn(temp.path(), clock).close();
    const noTarget = await runCliIn(temp.path(), ['migrate', '--to', 'postgres', '--config', temp.write('plain.yml', 'turn_state:\n  enabled: true\n')], { clock });
    expect(noTarget).toEqual({
      status: 2,
      stdout: '',
      stderr: 'holdfast: migrate --to postgres needs turn_state.postgres in the configuration: the url (and schema) of the database to copy into\n',
    });
    expect(await runCliIn(temp.path(), ['migrate'])).toEqual({ status: 2, stdout: '', stderr: "holdfast: migrate needs --to postgres\nTry 'holdfast migrate --help' for the options.\n" });
    expect(await runCliIn(temp.path(), ['migrate', '--to', 'mysql'])).toEqual({
      status: 2,
      stdout: '',
      stderr: "holdfast: cannot migrate to 'mysql' (expected postgres)\nTry 'holdfast migrate --help' for the options.\n",
    });
    expect((await runCliIn(temp.path(), ['migrate', '--help'])).stdout).toMatch(/^Usage: holdfast migrate --to postgres \[--config PATH\]\n/);
  });
});
