import type { OperatorStore } from '../../turn_state/operator_store.js';

/** What a command on an open store works with: the store, the time now, and the two outputs. */
export interface OperatorContext {
  readonly operator: OperatorStore;
  /** Wall-clock time from the Clock port, for ages. */
  readonly now: number;
  /** Where results go: text or one JSON document. */
  readonly out: (text: string) => void;
  /** Where refusals and failures go, one line each, prefixed `holdfast: `. */
  readonly err: (text: string) => void;
}
