import { afterEach, beforeEach } from 'vitest';
import type { ManualClock } from '../../support/manual_clock.js';
import type { HistoryStore } from '../../../src/turn_state/history_store.js';
import type { MemoryStore } from '../../../src/turn_state/memory_store.js';
import type { ModelChoiceStore } from '../../../src/turn_state/model_choice_store.js';
import type { UsageStore } from '../../../src/turn_state/usage_store.js';

/** The history, memory, chosen-model and usage ports of one store under test, and the manual clock it reads. */
export interface KeptHarness {
  readonly history: HistoryStore;
  readonly memory: MemoryStore;
  readonly models: ModelChoiceStore;
  readonly usage: UsageStore;
  readonly clock: ManualClock;
  /** Whether what is kept outlives a close: `false` for the in-memory fallback. */
  readonly durable: boolean;
  /** Closes the store and opens it again over the same storage, with the same clock. */
  reopen(): Promise<void>;
  close(): Promise<void>;
}

export type MakeKeptHarness = () => Promise<KeptHarness>;

/** A fresh harness for every test of the enclosing `describe`, closed after it. */
export function useKeptHarness(make: MakeKeptHarness): () => KeptHarness {
  let current: KeptHarness | undefined;
  beforeEach(async () => {
    current = await make();
  });
  afterEach(async () => {
    const harness = current;
    current = undefined;
    await harness?.close();
  });
  return () => {
    if (current === undefined) throw new Error('no harness outside a test');
    return current;
  };
}
