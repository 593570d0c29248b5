import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { SystemClock } from '../../src/core/system_clock.js';
import type { OpenedStore } from '../../src/turn_state/opened_store.js';
import { openPostgresStore } from '../../src/turn_state/postgres/open_pg_store.js';
import { memoryOnlyStore } from '../../src/turn_state/sqlite/open_store.js';
import { ManualClock } from '../support/manual_clock.js';
import { freshPgConnection, onSchema } from '../support/postgres_schema.js';
import { SequentialIds } from '../support/sequential_ids.js';
import { useTempDir } from '../support/temp_dir.js';
import { openStoreFileAt, TEST_TIMINGS } from '../support/turn_store.js';

const silent = pino({ level: 'silent' });

/** Closes `store` twice and shows that the first close ended it: its history no longer answers. */
async function closedTwice(store: OpenedStore): Promise<void> {
  await store.history.append('console:c', { role: 'user', text: 'kept until the close' });
  await store.close();
  await expect(store.close()).resolves.toBeUndefined();
  await expect(store.history.read('console:c')).rejects.toThrow();
}

describe('closing a store', () => {
  const temp = useTempDir();

  it('twice is harmless, in memory', async () => {
    await closedTwice(memoryOnlyStore({ clock: new ManualClock(), logger: silent }));
  });

  it('twice is harmless, on a SQLite file', async () => {
    await closedTwice(openStoreFileAt(`${temp.path()}/turns.sqlite3`, { clock: new ManualClock() }));
  });

  it('twice is harmless on PostgreSQL, and records one clean stop of the process', async () => {
    const connection = freshPgConnection();
    await closedTwice(await openPostgresStore({ connection, clock: new SystemClock(), ids: new SequentialIds('p'), logger: silent, shards: '0 of 2', ...TEST_TIMINGS }));
    const registry = await onSchema<{ instance_id: string; shards: string; stopped: boolean }>(connection, 'SELECT instance_id, shards, stopped_at IS NOT NULL AS stopped FROM instances');
    expect(registry).toEqual([{ instance_id: 'p-1', shards: '0 of 2', stopped: true }]);
  });
});
