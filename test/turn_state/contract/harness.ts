import { afterEach, beforeEach } from 'vitest';
import type { ManualClock } from '../../support/manual_clock.js';
import type { TurnStoreTimings } from '../../../src/turn_state/store_options.js';
import type { TurnStore } from '../../../src/turn_state/turn_store.js';
import type { OperatorStore } from '../../../src/turn_state/operator_store.js';
import type { StoredReply } from '../../support/stored_rows.js';
import type { TurnIdentity, TurnRecord } from '../../../src/turn_state/turn_types.js';

/** One store under test, the manual clock it reads and the timings it was opened with. */
export interface Harness {
  /** The open store; `reopen` replaces it. */
  readonly store: TurnStore;
  /** The operators' view of the same storage; `reopen` replaces it with the store. */
  readonly operator: OperatorStore;
  readonly clock: ManualClock;
  readonly timings: TurnStoreTimings;
  /** What the storage holds for a message, read beside the store: the contract's view of what admission kept. */
  readonly storedTurn: (identity: TurnIdentity) => Promise<TurnRecord | undefined>;
  /** What the storage holds as a turn's final reply, read beside the store. */
  readonly storedReply: (turnId: string) => Promise<StoredReply | undefined>;
  /** Closes the store and opens it again over the same storage, with the same clock and timings. */
  reopen(): Promise<void>;
  /** Closes the store; safe to call twice. */
  close(): Promise<void>;
}

export type MakeHarness = () => Promise<Harness>;

/** A fresh harness for every test of the enclosing `describe`, closed after it. */
export function useHarness(makeHarness: MakeHarness): () => Harness {
  let current: Harness | undefined;
  beforeEach(async () => {
    current = await makeHarness();
  });
  afterEach(async () => {
    const harness = current;
    current = undefined;
    await harness?.close();
  });
  return () => {
    if (current === undefined) throw new Error('the harness exists only inside a test');
    return current;
  };
}
