import { join } from 'node:path';
import { pino } from 'pino';
import { SequentialIds } from '../../support/sequential_ids.js';
import { ManualClock } from '../../support/manual_clock.js';
import type { TurnStoreTimings } from '../../../src/turn_state/store_options.js';
import type { TurnStore } from '../../../src/turn_state/turn_store.js';
import { storedReply, storedTurn } from '../../support/stored_rows.js';
import { openStoreFileAt } from '../../support/turn_store.js';
import type { OperatorStore } from '../../../src/turn_state/operator_store.js';
import { useTempDir } from '../../support/temp_dir.js';
import { describeTurnStoreContract, type Harness } from './turn_store_contract.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TIMINGS: TurnStoreTimings = { leaseTtlMs: 30_000, resumeTtlMs: 24 * HOUR, payloadRetentionMs: 7 * DAY, ledgerRetentionMs: 90 * DAY, usageRetentionMs: 400 * DAY };

const tmp = useTempDir();

async function makeSqliteHarness(): Promise<Harness> {
  const dbPath = join(tmp.path(), 'turns.sqlite3');
  const clock = new ManualClock();
  const ids = new SequentialIds('sqlite');
  const logger = pino({ level: 'silent' });
  const open = (): { turns: TurnStore; operator: OperatorStore } => openStoreFileAt(dbPath, { clock, ids, logger, timings: TIMINGS });
  let store: { turns: TurnStore; operator: OperatorStore } | undefined = open();
  const current = (): { turns: TurnStore; operator: OperatorStore } => {
    if (store === undefined) throw new Error('the store is closed');
    return store;
  };
  const close = async (): Promise<void> => {
    const closing = store;
    store = undefined;
    await closing?.turns.close();
  };
  return Promise.resolve({
    get store() {
      return current().turns;
    },
    get operator() {
      return current().operator;
    },
    clock,
    timings: TIMINGS,
    storedTurn: (identity) => Promise.resolve(storedTurn(dbPath, identity)),
    storedReply: (turnId) => Promise.resolve(storedReply(dbPath, turnId)),
    reopen: async () => {
      await close();
      store = open();
    },
    close,
  });
}

describeTurnStoreContract('SQLite', makeSqliteHarness);
