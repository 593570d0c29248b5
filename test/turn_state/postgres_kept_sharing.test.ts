import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { migratePg, PG_MIGRATIONS } from '../../src/turn_state/postgres/pg_migrations.js';
import { pgKeptStoresOn } from '../../src/turn_state/postgres/open_pg_store.js';
import { openPgPool, type PgConnection } from '../../src/turn_state/postgres/pg_pool.js';
import type { HistoryStore } from '../../src/turn_state/history_store.js';
import type { UsageStore } from '../../src/turn_state/usage_store.js';
import { freshPgConnection, onSchema } from '../support/postgres_schema.js';

const CHANNEL = 'discord:42';

describe('history, memory notes and usage limits shared by several processes on PostgreSQL', () => {
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.end()));
  });

  /** `count` processes' pools on one freshly migrated schema. */
  async function processesOn(count: number): Promise<{ connection: PgConnection; pools: pg.Pool[] }> {
    const connection = freshPgConnection();
    const opened = Array.from({ length: count }, () => openPgPool(connection));
    pools.push(...opened);
    for (const pool of opened) await migratePg(pool, connection.schema, PG_MIGRATIONS);
    return { connection, pools: opened };
  }

  it('gives each of many appends racing on one channel a revision of its own, and keeps every entry', async () => {
    const stores = (await processesOn(2)).pools.map((pool) => pgKeptStoresOn(pool).history);

    const revisions = await Promise.all(Array.from({ length: 20 }, (_, index) => (stores[index % 2] as HistoryStore).append(CHANNEL, { role: 'user', text: `line ${index}` })));

    expect(revisions.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
    const read = await stores[0]?.read(CHANNEL);
    expect(read?.revision).toBe(20);
    expect(read?.entries).toHaveLength(20);
  });

  it('never lets one user past turns_per_hour when two processes admit many of their messages at once', async () => {
    const stores = (await processesOn(2)).pools.map((pool) => pgKeptStoresOn(pool).usage);
    const owner = { source: 'discord', userId: 'ada', channelId: '42', serverId: 'g1' };
    const limits = [{ scope: 'user' as const, kind: 'turns_per_hour' as const, max: 5 }];
    const identity = (messageId: string) => ({ source: 'discord', channelId: '42', messageId });
    // Every connection of both pools open first, so that the admissions below truly overlap.
    await Promise.all(Array.from({ length: 20 }, (_, index) => (stores[index % 2] as UsageStore).admit({ identity: identity(`warm${index}`), owner: { ...owner, userId: `u${index}` }, limits })));

    const answers = await Promise.all(Array.from({ length: 40 }, (_, index) => (stores[index % 2] as UsageStore).admit({ identity: identity(`m${index}`), owner, limits })));

    expect(answers.filter((answer) => answer.kind === 'counted')).toHaveLength(5);
    expect(answers.filter((answer) => answer.kind === 'refused')).toHaveLength(35);
    expect(await stores[1]?.report({ period: { kind: 'today' }, filter: { scope: 'user', id: 'ada' } })).toEqual([expect.objectContaining({ turns: 5, refusals: 35 })]);
  });

  it('stores a note once when two processes remember it under the same key at once', async () => {
    const stores = (await processesOn(2)).pools.map((pool) => pgKeptStoresOn(pool).memory);

    const results = await Promise.all(stores.map((store, index) => store.remember({ scope: 'user', ownerId: 'discord:ada', text: `from process ${index}`, key: 'k1' })));

    expect(results.map((result) => result.kind).sort()).toEqual(['already_stored', 'stored']);
    const stored = results.find((result) => result.kind === 'stored')?.note;
    expect(await stores[1]?.recall({ scope: 'user', ownerId: 'discord:ada', limit: 5 })).toEqual({ notes: [stored], more: false });
  });

  it('finds matching notes far back among an owner’s many notes, newest first, and says when more matched', async () => {
    const { connection, pools: [pool] = [] } = await processesOn(1);
    await onSchema(
      connection,
      `INSERT INTO memory_notes (idempotency_key, scope, owner_id, text, created_at)
       SELECT 'k' || n, 'user', 'discord:ada', CASE WHEN n IN (3, 5, 7) THEN 'Lives in STRASSE ' || n ELSE 'note ' || n END, n FROM generate_series(1, 1000) AS n`,
    );
    const store = pgKeptStoresOn(pool as pg.Pool).memory;

    expect(await store.recall({ scope: 'user', ownerId: 'discord:ada', query: 'straße', limit: 2 })).toEqual({
      notes: [
        { text: 'Lives in STRASSE 7', createdAt: 7 },
        { text: 'Lives in STRASSE 5', createdAt: 5 },
      ],
      more: true,
    });
    expect(await store.recall({ scope: 'user', ownerId: 'discord:ada', query: 'straße', limit: 3 })).toMatchObject({ more: false });
  });
});
