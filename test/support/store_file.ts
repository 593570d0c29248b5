import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { pino, type Logger } from 'pino';
import { ManualClock } from './manual_clock.js';
import type { HistoryStore } from '../../src/turn_state/history_store.js';
import type { MemoryStore } from '../../src/turn_state/memory_store.js';
import type { UsageStore } from '../../src/turn_state/usage_store.js';
import type { ModelChoiceStore } from '../../src/turn_state/model_choice_store.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import type { OperatorStore } from '../../src/turn_state/operator_store.js';
import { openStoreFileAt } from './turn_store.js';

/** The store's file in `dir`, where the bot keeps it by default. */
export const storeFileIn = (dir: string): string => join(dir, 'data', 'turn_state', 'turns.sqlite3');

/** Every port of one store file. */
export interface TestStoreFile {
  readonly turns: TurnStore;
  readonly operator: OperatorStore;
  readonly history: HistoryStore;
  readonly memory: MemoryStore;
  readonly models: ModelChoiceStore;
  readonly usage: UsageStore;
  readonly dbPath: string;
  readonly clock: ManualClock;
  close(): Promise<void>;
}

/** The one store file in `dir` with every port on it, on a manual clock; fails the test if it fell back to memory. */
export function openTestStoreFile(dir: string, clock = new ManualClock(), logger: Logger = pino({ level: 'silent' })): TestStoreFile {
  const dbPath = storeFileIn(dir);
  const opened = openStoreFileAt(dbPath, { clock, logger, baseDir: dir });
  return { turns: opened.turns, operator: opened.operator, history: opened.history, memory: opened.memory, models: opened.models, usage: opened.usage, dbPath, clock, close: () => opened.close() };
}

/**
 * Overwrites the root page of one table or index of a closed SQLite file with bytes that are no
 * page, as a disk fault would: the header stays valid, so the file still opens.
 */
export function damageTreeOf(dbPath: string, name: string): void {
  const db = new BetterSqlite3(dbPath, { readonly: true });
  const { rootpage } = db.prepare<[string], { rootpage: number }>('SELECT rootpage FROM sqlite_schema WHERE name = ?').get(name) ?? { rootpage: 0 };
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  db.close();
  if (rootpage < 2) throw new Error(`${dbPath} has no table or index ${name} to damage`);
  const bytes = readFileSync(dbPath);
  bytes.fill(0xa5, (rootpage - 1) * pageSize, rootpage * pageSize);
  writeFileSync(dbPath, bytes);
}

/** Every file below `dir`, at any depth: a store file, its WAL and its blobs, for a byte scan. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

/** The bytes of every file below `dir`, one after another. */
export function bytesUnder(dir: string): Buffer {
  return Buffer.concat(filesUnder(dir).map((file) => readFileSync(file)));
}
