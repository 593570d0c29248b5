import { pino } from 'pino';
import { SequentialIds } from '../../support/sequential_ids.js';
import { ManualClock } from '../../support/manual_clock.js';
import { openSqliteStore } from '../../../src/turn_state/sqlite/open_store.js';
import type { OpenedStore } from '../../../src/turn_state/opened_store.js';
import { storeFileIn } from '../../support/store_file.js';
import { useTempDir } from '../../support/temp_dir.js';
import { TEST_TIMINGS } from '../../support/turn_store.js';
import { describeHistoryStoreContract } from './history_store_contract.js';
import type { KeptHarness, MakeKeptHarness } from './kept_contract_harness.js';
import { describeMemoryStoreContract } from './memory_store_contract.js';
import { describeModelChoiceContract } from './model_choice_contract.js';
import { describeUsageStoreContract } from './usage_store_contract.js';

const tmp = useTempDir();

/** The ports of the SQLite store: in its file in a temp dir (`enabled`), or in memory (the fallback). */
function sqliteHarness(enabled: boolean): MakeKeptHarness {
  return () => {
    const clock = new ManualClock();
    const open = (): OpenedStore =>
      openSqliteStore({ enabled, dbPath: storeFileIn(tmp.path()), baseDir: tmp.path(), clock, ids: new SequentialIds('t'), logger: pino({ level: 'silent' }), ...TEST_TIMINGS });
    let store = open();
    const harness: KeptHarness = {
      get history() {
        return store.history;
      },
      get memory() {
        return store.memory;
      },
      get models() {
        return store.models;
      },
      get usage() {
        return store.usage;
      },
      clock,
      durable: store.turns.durable,
      reopen: async () => {
        await store.close();
        store = open();
      },
      close: () => store.close(),
    };
    return Promise.resolve(harness);
  };
}

describeHistoryStoreContract('SQLite file', sqliteHarness(true));
describeMemoryStoreContract('SQLite file', sqliteHarness(true));
describeModelChoiceContract('SQLite file', sqliteHarness(true));
describeHistoryStoreContract('SQLite in memory (store off)', sqliteHarness(false));
describeMemoryStoreContract('SQLite in memory (store off)', sqliteHarness(false));
describeModelChoiceContract('SQLite in memory (store off)', sqliteHarness(false));
describeUsageStoreContract('SQLite file', sqliteHarness(true));
describeUsageStoreContract('SQLite in memory (store off)', sqliteHarness(false));
