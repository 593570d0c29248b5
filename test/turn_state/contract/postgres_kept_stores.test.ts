import type pg from 'pg';
import { pgKeptStoresOn } from '../../../src/turn_state/postgres/open_pg_store.js';
import { openPgPool } from '../../../src/turn_state/postgres/pg_pool.js';
import { ManualClock } from '../../support/manual_clock.js';
import { callsAfter, useMigratedPgSchema } from '../../support/postgres_schema.js';
import { describeHistoryStoreContract } from './history_store_contract.js';
import type { KeptHarness, MakeKeptHarness } from './kept_contract_harness.js';
import { describeMemoryStoreContract } from './memory_store_contract.js';
import { describeModelChoiceContract } from './model_choice_contract.js';
import { describeUsageStoreContract } from './usage_store_contract.js';

const migratedSchema = useMigratedPgSchema();

/** The history, memory and chosen-model ports on this file's schema, emptied for the test, the database's clock following the test's. */
const postgresHarness: MakeKeptHarness = async () => {
  const clock = new ManualClock();
  const { connection, pool: first, followed } = await migratedSchema(clock);
  let pool: pg.Pool = first;
  const sync = (): Promise<void> => followed.sync();
  const storesOn = (on: pg.Pool) => {
    const kept = pgKeptStoresOn(on);
    return { history: callsAfter(kept.history, sync), memory: callsAfter(kept.memory, sync), models: callsAfter(kept.models, sync), usage: callsAfter(kept.usage, sync) };
  };
  let stores = storesOn(pool);
  const harness: KeptHarness = {
    get history() {
      return stores.history;
    },
    get memory() {
      return stores.memory;
    },
    get models() {
      return stores.models;
    },
    get usage() {
      return stores.usage;
    },
    clock,
    durable: true,
    reopen: async () => {
      await pool.end();
      pool = openPgPool(connection);
      stores = storesOn(pool);
    },
    close: async () => {
      await followed.close();
      if (pool !== first) await pool.end();
    },
  };
  return harness;
};

describeHistoryStoreContract('PostgreSQL', postgresHarness);
describeMemoryStoreContract('PostgreSQL', postgresHarness);
describeModelChoiceContract('PostgreSQL', postgresHarness);
describeUsageStoreContract('PostgreSQL', postgresHarness);
