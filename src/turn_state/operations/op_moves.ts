/**
 * The ledger's moves (DESIGN §6): every state a call enters is also recorded here, in the same
 * transaction as the move, with its time and who made it — the bot itself (`NULL`), or the person
 * who answered a request for approval or gave a verdict. The ledger row says where a call stands;
 * its moves say how it got there, for operators (§10.2).
 */
import { OP_STATES, type OpKey, type OpState } from '../ledger_types.js';
import type { OpMoveRecord } from '../operator_store.js';
import { query, type Op, type Params } from './instructions.js';

/** Appends one move of the call `key`. */
export function* noteMove(key: OpKey, state: OpState, at: number, by: string | null): Op<void> {
  yield* query('INSERT INTO op_moves (turn_id, step, tool_call_id, state, moved_at, moved_by) VALUES (@turnId, @step, @toolCallId, @state, @at, @by) ON CONFLICT DO NOTHING', {
    ...key,
    state,
    at,
    by,
  });
}

/** Appends a move to `state` by the bot for every call of `ops` matching `where` (over `params`): before the UPDATE that makes them. */
export function* noteMovesWhere(where: string, params: Params, state: OpState, at: number): Op<void> {
  yield* query(
    `INSERT INTO op_moves (turn_id, step, tool_call_id, state, moved_at, moved_by)
     SELECT turn_id, step, tool_call_id, @movedTo, @movedAt, NULL FROM ops WHERE ${where}
     ON CONFLICT DO NOTHING`,
    { ...params, movedTo: state, movedAt: at },
  );
}

/** Forgets the moves of the calls of `ops` matching `where` (over `params`): before the DELETE that drops them. */
export function* forgetMovesWhere(where: string, params: Params): Op<void> {
  yield* query(
    `DELETE FROM op_moves WHERE EXISTS (SELECT 1 FROM ops WHERE ops.turn_id = op_moves.turn_id AND ops.step = op_moves.step AND ops.tool_call_id = op_moves.tool_call_id AND ${where})`,
    params,
  );
}

/**
 * The turn's moves, in the order they were made: by time, and within one instant in the order of
 * {@link OP_STATES}, which every legal move follows.
 */
export function* movesOfTurn(turnId: string): Op<OpMoveRecord[]> {
  const { rows } = yield* query<{ step: number; tool_call_id: string; state: OpState; moved_at: number; moved_by: string | null }>(
    'SELECT step, tool_call_id, state, moved_at, moved_by FROM op_moves WHERE turn_id = @turnId',
    { turnId },
  );
  const rank = (state: OpState): number => OP_STATES.indexOf(state);
  return rows
    .map((row) => ({ turnId, step: row.step, toolCallId: row.tool_call_id, state: row.state, at: row.moved_at, by: row.moved_by }))
    .sort((a, b) => a.at - b.at || a.step - b.step || (a.toolCallId < b.toolCallId ? -1 : a.toolCallId > b.toolCallId ? 1 : 0) || rank(a.state) - rank(b.state));
}
