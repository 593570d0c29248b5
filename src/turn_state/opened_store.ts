import type { HistoryStore } from './history_store.js';
import type { MemoryStore } from './memory_store.js';
import type { OperatorStore } from './operator_store.js';
import type { TurnStore } from './turn_store.js';

/** Every port of one opened store (DESIGN §7.1), whichever backend holds it. */
export interface OpenedStore {
  /** `undefined` when turns are not durable: the store is off or could not open. */
  readonly turns: TurnStore | undefined;
  /** The operators' view of the same store (DESIGN §9.1); `undefined` exactly when `turns` is. */
  readonly operator: OperatorStore | undefined;
  readonly history: HistoryStore;
  readonly memory: MemoryStore;
  /** Closes the connections behind every port; closing twice is harmless. */
  close(): Promise<void>;
}
