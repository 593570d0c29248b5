import { movedOp, type OpKey, type OpMove, type OpRecord, type OpSettlement } from '../turn_state/ledger_types.js';
import type { TurnDurability } from './durability.js';

/**
 * How a batch records the moves of its calls (DESIGN §7.3). A batch with an effect writes each
 * move at once ("call settled"), before the next call may start. A read-only batch keeps its moves for
 * the checkpoint that ends the step, so the step costs two commits whatever its size: a read
 * lost to a crash before that checkpoint is simply PREPARED again, and runs again.
 */
export interface BatchMoves {
  /** Whether a move is durable when `record` resolves. */
  readonly immediate: boolean;
  /** Records `move` of `op`; resolves to the op as the move leaves it. */
  record(op: OpRecord, move: OpMove): Promise<OpRecord>;
  /** The moves kept for the checkpoint, in the order they were made; none for an immediate batch. */
  readonly kept: readonly OpSettlement[];
}

/** Every move written at once. */
export function immediateMoves(durability: TurnDurability): BatchMoves {
  return {
    immediate: true,
    record: (op, move) => durability.moveOp(keyOf(op), move),
    kept: [],
  };
}

/** Every move kept for the step's checkpoint. */
export function keptMoves(): BatchMoves {
  const kept: OpSettlement[] = [];
  return {
    immediate: false,
    record(op, move) {
      kept.push({ key: keyOf(op), move });
      return Promise.resolve(movedOp(op, move));
    },
    kept,
  };
}

function keyOf(op: OpRecord): OpKey {
  return { turnId: op.turnId, step: op.step, toolCallId: op.toolCallId };
}
