import type { Logger } from '../core/logger.js';
import { marked } from '../core/marked.js';
import type { Admission } from './turn_types.js';

const STALE_TURN = marked<StaleTurnError>('StaleTurnError');
const UNAVAILABLE = marked<TurnStateUnavailable>('TurnStateUnavailable');
const ILLEGAL_MOVE = marked<IllegalOpMoveError>('IllegalOpMoveError');
const INTENT = marked<LedgerIntentError>('LedgerIntentError');
const UNDECODABLE = marked<UndecodableTurnError>('UndecodableTurnError');
const OWN_TOOLS_BACKUP = marked<BackupWithOwnToolsError>('BackupWithOwnToolsError');

/** A fenced write changed nothing: the writer's lease is no longer the turn's. It must stop, not retry. */
export class StaleTurnError extends Error {
  override readonly name = 'StaleTurnError';

  constructor(
    readonly turnId: string,
    readonly operation: string,
  ) {
    super(`turn ${turnId}: ${operation} was fenced out; another owner holds the turn or the lease expired`);
    STALE_TURN.mark(this);
  }
}

/** The store failed in the middle of durable work; the turn halts rather than run unledgered. */
export class TurnStateUnavailable extends Error {
  override readonly name = 'TurnStateUnavailable';

  constructor(
    readonly operation: string,
    cause: unknown,
  ) {
    super(`the turn store failed during ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    UNAVAILABLE.mark(this);
  }
}

/** An op move that the ledger's rules forbid (or an op that does not exist); nothing changed. */
export class IllegalOpMoveError extends Error {
  override readonly name = 'IllegalOpMoveError';

  constructor(
    readonly key: string,
    readonly from: string | undefined,
    readonly to: string,
  ) {
    super(from === undefined ? `op ${key} does not exist` : `op ${key} cannot move from ${from} to ${to}`);
    ILLEGAL_MOVE.mark(this);
  }
}

/** A batch of intents was refused before anything ran: an empty or duplicate call id, or a recorded one. */
export class LedgerIntentError extends Error {
  override readonly name = 'LedgerIntentError';

  constructor(
    readonly reason: 'empty_id' | 'duplicate_id' | 'already_recorded',
    readonly toolCallId: string,
  ) {
    super(reason === 'empty_id' ? 'a tool call has an empty id' : `tool call id ${toolCallId} is ${reason === 'duplicate_id' ? 'used twice in the batch' : 'already recorded for this step'}`);
    INTENT.mark(this);
  }
}

/** Which stored part of a turn could not be read back. */
export type TurnPart = 'checkpoint' | 'transcript' | 'ledger';

/**
 * A turn's stored state is readable from the store but is not data this code wrote: it can never
 * be resumed (DESIGN §7.5), unlike a store that failed, which may work again later.
 */
export class UndecodableTurnError extends Error {
  override readonly name = 'UndecodableTurnError';

  constructor(
    readonly turnId: string,
    readonly part: TurnPart,
    readonly detail: string,
  ) {
    super(`turn ${turnId}: a stored ${part} row cannot be decoded: ${detail}`);
    UNDECODABLE.mark(this);
  }
}

/** `decode()`, with any failure reported as an {@link UndecodableTurnError} of `turnId`'s `part`. */
export function decodedPart<T>(turnId: string, part: TurnPart, decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    throw new UndecodableTurnError(turnId, part, String(error));
  }
}

/**
 * The store cannot copy itself: it lives in a database server that is backed up with that
 * server's own tool, which the operator runs instead of `holdfast backup`.
 */
export class BackupWithOwnToolsError extends Error {
  override readonly name = 'BackupWithOwnToolsError';

  constructor(
    readonly backend: 'postgres',
    readonly tool: 'pg_dump',
  ) {
    super(`the PostgreSQL store is backed up with PostgreSQL's own tools, not copied by holdfast backup: run ${tool} against turn_state.postgres.url (its schema holds the whole store)`);
    OWN_TOOLS_BACKUP.mark(this);
  }
}

export const isStaleTurnError = STALE_TURN.is;
export const isUndecodableTurnError = UNDECODABLE.is;
export const isTurnStateUnavailable = UNAVAILABLE.is;
export const isIllegalOpMoveError = ILLEGAL_MOVE.is;
export const isLedgerIntentError = INTENT.is;
export const isBackupWithOwnToolsError = OWN_TOOLS_BACKUP.is;

/**
 * Whether a store call's error is the store's answer rather than its failure: a superseded
 * owner, an illegal move, a refused batch or an undecodable turn.
 */
export function isStoreRefusal(error: unknown): error is StaleTurnError | IllegalOpMoveError | LedgerIntentError | UndecodableTurnError {
  return isStaleTurnError(error) || isIllegalOpMoveError(error) || isLedgerIntentError(error) || isUndecodableTurnError(error);
}

/**
 * What an error thrown inside a store call stands for (DESIGN §9.3). The store's answer (a
 * refusal) stays itself; the store failing — an error of its database driver, as `fromDriver`
 * tells, or of the file system under its blobs — becomes {@link TurnStateUnavailable}; anything
 * else is a fault of the code around the store (a value it cannot encode, a bug) and is passed on
 * as it is (a thrown value that is no Error, in one), never reported as the store's failure.
 */
export function storeCallError(operation: string, error: unknown, fromDriver: (error: unknown) => boolean): Error {
  if (isStoreRefusal(error) || isTurnStateUnavailable(error)) return error;
  if (fromDriver(error) || isSystemError(error)) return new TurnStateUnavailable(operation, error);
  return error instanceof Error ? error : new Error(`${operation} threw ${String(error)}`, { cause: error });
}

/** An error of a system call (a file, a socket), which Node marks with the call's name. */
function isSystemError(error: unknown): boolean {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/**
 * The admission of a message whose store call failed with `error`, as {@link storeCallError}
 * judged it: the store failing is logged and answered `store_unavailable`; any other error is
 * thrown on.
 */
export function admissionFailed(error: Error, logger: Logger): Promise<Admission> {
  if (!isTurnStateUnavailable(error)) return Promise.reject(error);
  logger.error({ err: error }, 'turn admission failed: the store is unavailable');
  return Promise.resolve({ disposition: 'store_unavailable', error });
}

/**
 * Why a store could not be used, in one line for the log or an operator: the error's message and SQLite's
 * code, never a stack trace.
 */
export function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = 'code' in error && typeof error.code === 'string' && !error.message.includes(error.code) ? ` (${error.code})` : '';
  return `${error.message}${code}`;
}

/** The bot process that holds a store file, as it recorded itself when it took the file. */
export interface StoreHolder {
  readonly pid: number;
  readonly host: string;
  /** When it took the file, as an ISO 8601 time. */
  readonly startedAt: string;
}

const STORE_IN_USE = marked<StoreInUseError>('StoreInUseError');

/** Another bot process holds the store file (DESIGN §7.7): this one must not open it. */
export class StoreInUseError extends Error {
  override readonly name = 'StoreInUseError';

  /** @param holder `undefined` when the holder's record could not be read. */
  constructor(
    readonly dbPath: string,
    readonly holder: StoreHolder | undefined,
  ) {
    const who = holder === undefined ? 'a process that left no record of itself' : `pid ${holder.pid} on host ${holder.host}, since ${holder.startedAt}`;
    super(`the store ${dbPath} is in use by another bot process (${who}); stop that one first, or give this one its own turn_state.db_path`);
    STORE_IN_USE.mark(this);
  }
}

export const isStoreInUseError = STORE_IN_USE.is;

const STORE_REFUSED = marked<StoreRefusedError>('StoreRefusedError');

/**
 * The database server refused the bot for something only a person can fix in
 * `turn_state.postgres.url`: its user or password, or a database that does not exist. The program
 * exits 2, as for any other configuration problem.
 */
export class StoreRefusedError extends Error {
  override readonly name = 'StoreRefusedError';

  /** @param where the store, as operators see it, without the password; `sqlState` the server's code. */
  constructor(
    readonly where: string,
    readonly sqlState: string,
    cause: unknown,
  ) {
    super(`the database server refused the store (${where}): ${causeOf(cause)}; check turn_state.postgres.url`, { cause });
    STORE_REFUSED.mark(this);
  }
}

export const isStoreRefusedError = STORE_REFUSED.is;
