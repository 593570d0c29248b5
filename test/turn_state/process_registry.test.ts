import { hostname } from 'node:os';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { SystemClock } from '../../src/core/system_clock.js';
import { openPostgresStore } from '../../src/turn_state/postgres/open_pg_store.js';
import { ManualClock } from '../support/manual_clock.js';
import { freshPgConnection } from '../support/postgres_schema.js';
import { SequentialIds } from '../support/sequential_ids.js';
import { useTempDir } from '../support/temp_dir.js';
import { openStoreFileAt, TEST_TIMINGS } from '../support/turn_store.js';

const silent = pino({ level: 'silent' });

describe('the processes operators see sharing a store', () => {
  const temp = useTempDir();

  it('on PostgreSQL: every process that opened the store, with its host, pid and shards, and when a stopped one stopped', async () => {
    const connection = freshPgConnection();
    const open = (shards: string, ids: string) => openPostgresStore({ connection, clock: new SystemClock(), ids: new SequentialIds(ids), logger: silent, shards, ...TEST_TIMINGS });
    const first = await open('0 of 2', 'a');
    const second = await open('1 of 2', 'b');
    try {
      const seen = await second.operator.processes();
      expect(seen.map((process) => [process.instanceId, process.host, process.pid, process.shards, process.stoppedAt]).sort()).toEqual([
        ['a-1', hostname(), process.pid, '0 of 2', null],
        ['b-1', hostname(), process.pid, '1 of 2', null],
      ]);
      expect(seen.every((process) => process.heartbeatAt >= process.startedAt)).toBe(true);

      await first.close();
      const after = await second.operator.processes();
      expect(after.find((process) => process.instanceId === 'a-1')?.stoppedAt).toEqual(expect.any(Number));
      expect(after.find((process) => process.instanceId === 'b-1')?.stoppedAt).toBeNull();
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('on SQLite: none, the file being one process’s at a time', async () => {
    const store = openStoreFileAt(`${temp.path()}/turns.sqlite3`, { clock: new ManualClock() });
    expect(await store.operator.processes()).toEqual([]);
    await store.close();
  });
});
