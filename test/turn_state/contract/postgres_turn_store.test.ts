import type pg from 'pg';
import { pino } from 'pino';
import { openPgPool } from '../../../src/turn_state/postgres/pg_pool.js';
import { pgPortsOn } from '../../../src/turn_state/postgres/open_pg_store.js';
import type { OperatorStore } from '../../../src/turn_state/operator_store.js';
import type { TurnStoreTimings } from '../../../src/turn_state/store_options.js';
import type { TurnStore } from '../../../src/turn_state/turn_store.js';
import { ManualClock } from '../../support/manual_clock.js';
import { callsAfter, useMigratedPgSchema } from '../../support/postgres_schema.js';
import { pgStoredReply, pgStoredTurn } from '../../support/postgres_stored_rows.js';
import { SequentialIds } from '../../support/sequential_ids.js';
import { describeTurnStoreContract, type Harness } from './turn_store_contract.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TIMINGS: TurnStoreTimings = { leaseTtlMs: 30_000, resumeTtlMs: 24 * HOUR, payloadRetentionMs: 7 * DAY, ledgerRetentionMs: 90 * DAY, usageRetentionMs: 400 * DAY };

const migratedSchema = useMigratedPgSchema();

/**
 * A PostgreSQL store on this file's schema, emptied for the test, whose database clock follows the
 * harness's manual clock. Reopening is a restart of the same process: a new pool, the same schema
 * and instance id.
 */
async function makePgHarness(): Promise<Harness> {
  const clock = new ManualClock();
  const { connection, pool: first, reader, followed } = await migratedSchema(clock);
  const ids = new SequentialIds('pg');
  const logger = pino({ level: 'silent' });
  const options = { ...TIMINGS, clock, ids, logger, instanceId: 'instance-1' };
  let pool: pg.Pool | undefined = first;
  const open = (on: pg.Pool): { turns: TurnStore; operator: OperatorStore } => {
    const ports = pgPortsOn(on, options);
    return { turns: callsAfter(ports.turns, () => followed.sync()), operator: callsAfter(ports.operator, () => followed.sync()) };
  };
  let store: { turns: TurnStore; operator: OperatorStore } | undefined = open(pool);
  const current = (): { turns: TurnStore; operator: OperatorStore } => {
    if (store === undefined) throw new Error('the store is closed');
    return store;
  };
  const closeStore = async (endPool: boolean): Promise<void> => {
    const [closing, ending] = [store, pool];
    store = undefined;
    pool = undefined;
    await closing?.turns.close();
    if (endPool) await ending?.end();
  };
  let closed = false;
  return {
    get store() {
      return current().turns;
    },
    get operator() {
      return current().operator;
    },
    clock,
    timings: TIMINGS,
    storedTurn: (identity) => pgStoredTurn(reader, identity),
    storedReply: (turnId) => pgStoredReply(reader, turnId),
    reopen: async () => {
      await closeStore(true);
      pool = openPgPool(connection);
      store = open(pool);
    },
    close: async () => {
      await closeStore(pool !== first);
      if (closed) return;
      closed = true;
      await followed.close();
    },
  };
}

describeTurnStoreContract('PostgreSQL', makePgHarness);
