import type { HistoryStore } from './history_store.js';
import type { MemoryStore } from './memory_store.js';
import type { ModelChoiceStore } from './model_choice_store.js';
import type { OperatorStore } from './operator_store.js';
import type { TurnStore } from './turn_store.js';
import type { UsageStore } from './usage_store.js';

/** Every port of one opened store (DESIGN §7.1), whichever backend holds it. */
export interface OpenedStore {
  /** Not `durable` when the store is off or could not open: then it keeps nothing (see `noTurnStore`). */
  readonly turns: TurnStore;
  /** The operators' view of the same store (DESIGN §9.1); nothing to see when it keeps nothing. */
  readonly operator: OperatorStore;
  readonly history: HistoryStore;
  readonly memory: MemoryStore;
  /** The model each channel's admins chose (`/model`). */
  readonly models: ModelChoiceStore;
  /** What each turn spent, and the limits on it (DESIGN §10.1). */
  readonly usage: UsageStore;
  /** Closes the connections behind every port; closing twice is harmless. */
  close(): Promise<void>;
}

/**
 * The store as an operator's command finds it (DESIGN §7.7): switched off, not created yet, there
 * but unusable (damaged, or written by a newer version), or open beside the running bot — without
 * its lock, its sweeps or its inbox. `path` names where it is for people: the file, or the
 * PostgreSQL schema and database (never the password).
 */
export type StoreAccess =
  | { readonly kind: 'disabled' }
  | { readonly kind: 'missing'; readonly path: string }
  | { readonly kind: 'unusable'; readonly path: string; readonly cause: string }
  | { readonly kind: 'opened'; readonly path: string; readonly operator: OperatorStore; close(): Promise<void> };
