import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { ManualClock } from './manual_clock.js';
import type { HistoryStore } from '../../src/turn_state/history_store.js';
import type { MemoryStore } from '../../src/turn_state/memory_store.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import { openStoreFileAt } from './turn_store.js';

/** The store's file in `dir`, where the bot keeps it by default. */
export const storeFileIn = (dir: string): string => join(dir, 'data', 'turn_state', 'turns.sqlite3');

/** Every port of one store file. */
export interface TestStoreFile {
  readonly turns: TurnStore;
  readonly history: HistoryStore;
  readonly memory: MemoryStore;
  readonly dbPath: string;
  readonly clock: ManualClock;
  close(): Promise<void>;
}

/** The one store file in `dir` with every port on it, on a manual clock; fails the test if it fell back to memory. */
export function openTestStoreFile(dir: string, clock = new ManualClock(), logger: Logger = pino({ level: 'silent' })): TestStoreFile {
  const dbPath = storeFileIn(dir);
  const opened = openStoreFileAt(dbPath, { clock, logger, baseDir: dir });
  return { turns: opened.turns, history: opened.history, memory: opened.memory, dbPath, clock, close: () => opened.close() };
}
