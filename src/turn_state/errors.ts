const STALE_TURN = Symbol.for('holdfast.StaleTurnError');
const UNAVAILABLE = Symbol.for('holdfast.TurnStateUnavailable');
const ILLEGAL_MOVE = Symbol.for('holdfast.IllegalOpMoveError');
const INTENT = Symbol.for('holdfast.LedgerIntentError');

/** A fenced write changed nothing: the writer's lease is no longer the turn's. It must stop, not retry. */
export class StaleTurnError extends Error {
  readonly [STALE_TURN] = true;
  override readonly name = 'StaleTurnError';

  constructor(readonly turnId: string, readonly operation: string) {
    super(`turn ${turnId}: ${operation} was fenced out; another owner holds the turn or the lease expired`);
  }
}

/** The store failed in the middle of durable work; the turn halts rather than run unledgered. */
export class TurnStateUnavailable extends Error {
  readonly [UNAVAILABLE] = true;
  override readonly name = 'TurnStateUnavailable';

  constructor(readonly operation: string, cause: unknown) {
    super(`the turn store failed during ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** An op move that the ledger's rules forbid (or an op that does not exist); nothing changed. */
export class IllegalOpMoveError extends Error {
  readonly [ILLEGAL_MOVE] = true;
  override readonly name = 'IllegalOpMoveError';

  constructor(readonly key: string, readonly from: string | undefined, readonly to: string) {
    super(from === undefined ? `op ${key} does not exist` : `op ${key} cannot move from ${from} to ${to}`);
  }
}

/** A batch of intents was refused before anything ran: an empty or duplicate call id, or a recorded one. */
export class LedgerIntentError extends Error {
  readonly [INTENT] = true;
  override readonly name = 'LedgerIntentError';

  constructor(readonly reason: 'empty_id' | 'duplicate_id' | 'already_recorded', readonly toolCallId: string) {
    super(reason === 'empty_id' ? 'a tool call has an empty id' : `tool call id ${toolCallId} is ${reason === 'duplicate_id' ? 'used twice in the batch' : 'already recorded for this step'}`);
  }
}

const marked = (marker: symbol) => (error: unknown): boolean => typeof error === 'object' && error !== null && marker in error;

export const isStaleTurnError = marked(STALE_TURN) as (error: unknown) => error is StaleTurnError;
export const isTurnStateUnavailable = marked(UNAVAILABLE) as (error: unknown) => error is TurnStateUnavailable;
export const isIllegalOpMoveError = marked(ILLEGAL_MOVE) as (error: unknown) => error is IllegalOpMoveError;
export const isLedgerIntentError = marked(INTENT) as (error: unknown) => error is LedgerIntentError;
