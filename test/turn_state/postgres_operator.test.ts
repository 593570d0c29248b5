import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { backup } from '../../src/app/operator/backup.js';
import { isBackupWithOwnToolsError } from '../../src/turn_state/errors.js';
import { migratePg, PG_MIGRATIONS } from '../../src/turn_state/postgres/pg_migrations.js';
import { openPgPool, type PgConnection } from '../../src/turn_state/postgres/pg_pool.js';
import { pgPortsOn } from '../../src/turn_state/postgres/open_pg_store.js';
import type { OperatorStore } from '../../src/turn_state/operator_store.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import { ManualClock } from '../support/manual_clock.js';
import { parkedTurn } from '../support/operator_cli.js';
import { freshPgConnection, onSchema } from '../support/postgres_schema.js';
import { SequentialIds } from '../support/sequential_ids.js';
import { useTempDir } from '../support/temp_dir.js';
import { admitNew, TEST_TIMINGS, userText } from '../support/turn_store.js';

describe('the operators’ store on PostgreSQL', () => {
  const tmp = useTempDir();
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.end()));
  });

  async function storesOn(): Promise<{ connection: PgConnection; turns: TurnStore; operator: OperatorStore }> {
    const connection = freshPgConnection();
    const pool = openPgPool(connection);
    pools.push(pool);
    await migratePg(pool, connection.schema, PG_MIGRATIONS);
    const options = { ...TEST_TIMINGS, clock: new ManualClock(), ids: new SequentialIds('op'), logger: pino({ level: 'silent' }), instanceId: 'process-a' };
    const { turns, operator } = pgPortsOn(pool, options);
    return { connection, turns, operator };
  }

  it('finds a store the bot wrote healthy, and names each row that breaks what the store keeps true', async () => {
    const { connection, turns, operator } = await storesOn();
    const running = await admitNew(turns, 'running');
    await turns.checkpoint(running, {
      append: [{ role: 'user', content: [{ type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: 'iVBORw0KGgo=' } }] }],
      state: {},
      progressed: true,
    });
    const suspended = await admitNew(turns, 'suspended');
    await turns.suspend(suspended, 'provider overloaded');
    const parked = await parkedTurn(turns, 'parked', [{ id: 'w1' }]);
    const checkpointed = await admitNew(turns, 'checkpointed');
    await turns.checkpoint(checkpointed, { append: [userText('one'), userText('two')], state: {}, progressed: true });
    expect(await operator.checkIntegrity()).toEqual([]);

    await onSchema(connection, `UPDATE turns SET lease_token = 'left-behind' WHERE turn_id = $1`, [suspended.turnId]);
    await onSchema(connection, `UPDATE ops SET state = 'RESOLVED_APPLIED' WHERE turn_id = $1`, [parked]);
    await onSchema(connection, 'DELETE FROM transcript WHERE turn_id = $1 AND seq = 1', [checkpointed.turnId]);
    await onSchema(connection, 'UPDATE turns SET lease_token = NULL WHERE turn_id = $1', [checkpointed.turnId]);
    await onSchema(connection, 'ALTER TABLE blob_refs DROP CONSTRAINT blob_refs_digest_fkey; DELETE FROM blobs');

    const [{ digest } = { digest: '' }] = await onSchema<{ digest: string }>(connection, 'SELECT digest FROM blob_refs');
    expect(await operator.checkIntegrity()).toEqual([
      `blob ${digest} is referenced but missing from the blobs table`,
      `turn ${checkpointed.turnId} is ACTIVE without a lease`,
      `turn ${suspended.turnId} is SUSPENDED but holds a lease`,
      `turn ${parked} is AWAITING_RESOLUTION but no call of it awaits a verdict`,
      `turn ${checkpointed.turnId} has a checkpoint covering 3 transcript rows but 2 are stored`,
    ]);
  });

  it('refuses a backup, naming pg_dump, and writes nothing; `holdfast backup` says so and exits 2', async () => {
    const { operator } = await storesOn();
    const path = join(tmp.path(), 'copy');

    const refused = await operator.backup(path).catch((error: unknown) => error);
    expect(isBackupWithOwnToolsError(refused) && refused.tool).toBe('pg_dump');

    const lines: string[] = [];
    const status = await backup({ operator, now: 0, out: (text) => lines.push(text), err: (text) => lines.push(text) }, { path: 'copy', cwd: tmp.path(), storePath: 'schema' });
    expect({ status, lines }).toEqual({
      status: 2,
      lines: [
        "holdfast: the PostgreSQL store is backed up with PostgreSQL's own tools, not copied by holdfast backup: run pg_dump against turn_state.postgres.url (its schema holds the whole store)\n",
      ],
    });
    expect(existsSync(path)).toBe(false);
  });
});
