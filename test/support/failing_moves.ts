import type { OpMove } from '../../src/turn_state/ledger_types.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';

/** A store whose ledger moves fail where a test says, and what it refused. */
export interface FailingMoves {
  readonly store: TurnStore;
  /** The moves it refused, in order. */
  readonly refused: OpMove[];
}

/**
 * `store`, except that each op move for which `failure(move)` gives an error throws that error
 * instead of being written: a value the store cannot encode, or the store failing at that very
 * write. Every other call reaches `store` as it is.
 */
export function failingMoves(store: TurnStore, failure: (move: OpMove) => Error | undefined): FailingMoves {
  const refused: OpMove[] = [];
  const moveOp: TurnStore['moveOp'] = (lease, key, move) => {
    const error = failure(move);
    if (error === undefined) return store.moveOp(lease, key, move);
    refused.push(move);
    return Promise.reject(error);
  };
  const failing = new Proxy(store, {
    get(target, property) {
      if (property === 'moveOp') return moveOp;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: failing, refused };
}
