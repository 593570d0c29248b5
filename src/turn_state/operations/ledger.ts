/**
 * The tool-call ledger (DESIGN §6): one PREPARED row per proposed call, recorded before anything
 * runs, and only the legal moves after it, each fenced by the turn's lease. Inputs, results and
 * errors are stored scrubbed of secrets (§7.6); a large result lives in a blob.
 */
import { callFingerprint, idempotencyKey } from '../call_fingerprint.js';
import { decodedPart, IllegalOpMoveError, LedgerIntentError, StaleTurnError } from '../errors.js';
import { describeOpKey, LEGAL_PRIOR_STATES, READ_ONLY_PRIOR_STATES, type OpIntent, type OpKey, type OpMove, type OpRecord } from '../ledger_types.js';
import { scrubJsonText, scrubSecrets } from '../scrub.js';
import { INLINE_LIMIT_BYTES } from '../stored_message.js';
import { opFromRow, type OpRow } from '../turn_rows.js';
import type { Lease } from '../turn_types.js';
import { lockFence } from './fence.js';
import { dialect, query, queryOne, requiredBlobSink, requiredBlobSource, type Op } from './instructions.js';
import { noteMove } from './op_moves.js';

/**
 * Records one PREPARED op per intent with plain INSERTs: a (step, call id) already recorded fails
 * the whole write instead of replacing the row.
 * @throws {LedgerIntentError} `already_recorded`.
 */
export function* recordIntents(turnId: string, step: number, intents: readonly OpIntent[], now: number): Op<OpRecord[]> {
  const { isUniqueViolation } = yield* dialect();
  const recorded: OpRecord[] = [];
  for (const intent of intents) {
    const key = { turnId, step, toolCallId: intent.toolCallId };
    const input = scrubSecrets(intent.input);
    const params = {
      ...key,
      toolName: intent.toolName,
      effect: intent.effect,
      idempotencyKey: idempotencyKey(key),
      fingerprint: callFingerprint(intent.toolName, input),
      input: JSON.stringify(input),
      now,
    };
    try {
      const { rows } = yield* query<OpRow>(
        `INSERT INTO ops (turn_id, step, tool_call_id, tool_name, effect, state, idempotency_key, fingerprint, input, created_at, updated_at)
         VALUES (@turnId, @step, @toolCallId, @toolName, @effect, 'PREPARED', @idempotencyKey, @fingerprint, @input, @now, @now) RETURNING *`,
        params,
      );
      for (const row of rows) recorded.push(opFromRow(row, resultOfNewOp));
    } catch (error) {
      if (isUniqueViolation(error)) throw new LedgerIntentError('already_recorded', intent.toolCallId);
      throw error;
    }
    yield* noteMove(key, 'PREPARED', now, null);
  }
  return recorded;
}

/**
 * One legal move of one op: the fence checked with the turn's row locked, then the op moved only
 * from a legal prior state.
 * @throws {StaleTurnError} when the lease is not the turn's (or is another turn's).
 * @throws {IllegalOpMoveError} when the op does not exist or cannot make this move.
 */
export function* moveOp(lease: Lease, key: OpKey, move: OpMove, now: number): Op<OpRecord> {
  const operation = `move op to ${move.to}`;
  if (key.turnId !== lease.turnId) throw new StaleTurnError(key.turnId, `${operation} with the lease of turn ${lease.turnId}`);
  yield* lockFence(lease, now, operation);
  const priors = LEGAL_PRIOR_STATES[move.to];
  const readOnlyPriors = READ_ONLY_PRIOR_STATES[move.to] ?? [];
  if (priors.length > 0 || readOnlyPriors.length > 0) {
    const { inList } = yield* dialect();
    const detail = yield* storedDetail(key.turnId, move);
    const { changes } = yield* query(
      `UPDATE ops SET state = @to, result = COALESCE(@result, result), result_blob = COALESCE(@resultBlob, result_blob),
         error = COALESCE(@error, error), updated_at = @now
       WHERE turn_id = @turnId AND step = @step AND tool_call_id = @toolCallId
         AND (${inList('state', 'priors')} OR (effect = 'read' AND ${inList('state', 'readOnlyPriors')}))`,
      { ...key, to: move.to, priors, readOnlyPriors, now, ...detail },
    );
    if (changes === 1) {
      yield* noteMove(key, move.to, now, null);
      return yield* requireOp(key);
    }
  }
  throw new IllegalOpMoveError(describeOpKey(key), (yield* opByKey(key))?.state, move.to);
}

/** One op of the ledger, its result read back from its blob when it is kept in one. */
export function* opByKey(key: OpKey): Op<OpRecord | undefined> {
  const row = yield* queryOne<OpRow>('SELECT * FROM ops WHERE turn_id = @turnId AND step = @step AND tool_call_id = @toolCallId', { ...key });
  if (row === undefined) return undefined;
  if (row.result_blob === null) return opFromRow(row, resultOfNewOp);
  const blobs = yield* requiredBlobSource({ kind: 'turn', turnId: key.turnId, owner: 'op' });
  return opFromRow(row, (digest) => blobs.get(digest).toString('utf8'));
}

/** An op read back inside the transaction that wrote it: it cannot be missing. */
export function* requireOp(key: OpKey): Op<OpRecord> {
  const op = yield* opByKey(key);
  if (op === undefined) throw new IllegalOpMoveError(describeOpKey(key), undefined, 'read');
  return op;
}

/** A turn's ops in the order they were proposed; a row that cannot be decoded makes the turn undecodable. */
export function* opsOfTurn(turnId: string): Op<OpRecord[]> {
  const { rows } = yield* query<OpRow>('SELECT * FROM ops WHERE turn_id = @turnId ORDER BY step, created_at, tool_call_id', { turnId });
  if (rows.length === 0) return [];
  const blobs = rows.some((row) => row.result_blob !== null) ? yield* requiredBlobSource({ kind: 'turn', turnId, owner: 'op' }) : undefined;
  return rows.map((row) => decodedPart(turnId, 'ledger', () => opFromRow(row, (digest) => (blobs ?? noBlobs(digest)).get(digest).toString('utf8'))));
}

/** What a move stores: a result (in a blob when large) or an error, scrubbed of secrets. */
function* storedDetail(turnId: string, move: OpMove): Op<{ result: string | null; resultBlob: string | null; error: string | null }> {
  if ('error' in move) return { result: null, resultBlob: null, error: scrubJsonText(move.error) };
  if (!('result' in move)) return { result: null, resultBlob: null, error: null };
  const result = scrubJsonText(move.result);
  if (Buffer.byteLength(result) <= INLINE_LIMIT_BYTES) return { result, resultBlob: null, error: null };
  const digest = (yield* requiredBlobSink()).put(Buffer.from(result));
  yield* query(`INSERT INTO blob_refs (turn_id, digest, owner) VALUES (@turnId, @digest, 'op') ON CONFLICT DO NOTHING`, { turnId, digest });
  return { result: null, resultBlob: digest, error: null };
}

/** A row without a result blob refers to none. */
function resultOfNewOp(digest: string): never {
  throw new Error(`an op without a result blob cannot refer to blob ${digest}`);
}

function noBlobs(digest: string): never {
  throw new Error(`blob ${digest} was not read with the ledger`);
}
