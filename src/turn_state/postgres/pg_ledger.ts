import { callFingerprint, idempotencyKey } from '../call_fingerprint.js';
import { IllegalOpMoveError, LedgerIntentError, StaleTurnError } from '../errors.js';
import { describeOpKey, LEGAL_PRIOR_STATES, READ_ONLY_PRIOR_STATES, type OpIntent, type OpKey, type OpMove, type OpRecord } from '../ledger_types.js';
import { scrubJsonText, scrubSecrets } from '../scrub.js';
import { INLINE_LIMIT_BYTES } from '../stored_message.js';
import { opFromRow, type OpRow } from '../turn_rows.js';
import type { Lease } from '../turn_types.js';
import { named } from './named_params.js';
import { PendingBlobs } from './pg_blobs.js';
import { lockFence } from './pg_fence.js';
import { opByKey } from './pg_op_reads.js';
import type { PgQueryable } from './pg_pool.js';

/** PostgreSQL's SQLSTATE for a unique or primary key violation. */
const UNIQUE_VIOLATION = '23505';

const RECORD_INTENT = `INSERT INTO ops (turn_id, step, tool_call_id, tool_name, effect, state, idempotency_key, fingerprint, input, created_at, updated_at)
  VALUES (@turnId, @step, @toolCallId, @toolName, @effect, 'PREPARED', @idempotencyKey, @fingerprint, @input, @now, @now)
  RETURNING *`;

/**
 * Records one PREPARED op per intent with plain INSERTs, inside the caller's fenced write
 * transaction: a (step, call id) already recorded fails the whole transaction instead of
 * replacing the row.
 * @throws {LedgerIntentError} `already_recorded`.
 */
export async function recordIntents(db: PgQueryable, turnId: string, step: number, intents: readonly OpIntent[], now: number): Promise<OpRecord[]> {
  const recorded: OpRecord[] = [];
  for (const intent of intents) {
    const key = { turnId, step, toolCallId: intent.toolCallId };
    const input = scrubSecrets(intent.input);
    const statement = named(RECORD_INTENT, {
      ...key,
      toolName: intent.toolName,
      effect: intent.effect,
      idempotencyKey: idempotencyKey(key),
      fingerprint: callFingerprint(intent.toolName, input),
      input: JSON.stringify(input),
      now,
    });
    try {
      const { rows } = await db.query<OpRow>(statement.text, statement.values);
      for (const row of rows) recorded.push(opFromRow(row, resultOfNewOp));
    } catch (error) {
      if (isUniqueViolation(error)) throw new LedgerIntentError('already_recorded', intent.toolCallId);
      throw error;
    }
  }
  return recorded;
}

/**
 * One legal move of one op, inside the caller's write transaction: the fence is checked with the
 * turn's row locked, then the op moves only from a legal prior state.
 * @throws {StaleTurnError} when the lease is not the turn's (or is another turn's).
 * @throws {IllegalOpMoveError} when the op does not exist or cannot make this move.
 */
export async function moveOp(db: PgQueryable, lease: Lease, key: OpKey, move: OpMove, now: number): Promise<OpRecord> {
  const operation = `move op to ${move.to}`;
  if (key.turnId !== lease.turnId) throw new StaleTurnError(key.turnId, `${operation} with the lease of turn ${lease.turnId}`);
  await lockFence(db, lease, now, operation);
  const priors = LEGAL_PRIOR_STATES[move.to];
  const readOnlyPriors = READ_ONLY_PRIOR_STATES[move.to] ?? [];
  if (priors.length > 0 || readOnlyPriors.length > 0) {
    const detail = await storedDetail(db, key.turnId, move);
    const statement = named(
      `UPDATE ops SET state = @to, result = COALESCE(@result, result), result_blob = COALESCE(@resultBlob, result_blob),
         error = COALESCE(@error, error), updated_at = @now
       WHERE turn_id = @turnId AND step = @step AND tool_call_id = @toolCallId
         AND (state = ANY(@priors) OR (effect = 'read' AND state = ANY(@readOnlyPriors)))`,
      { ...key, to: move.to, priors, readOnlyPriors, now, ...detail },
    );
    const { rowCount } = await db.query(statement.text, statement.values);
    if (rowCount === 1) return requireOp(db, key);
  }
  throw new IllegalOpMoveError(describeOpKey(key), (await opByKey(db, key))?.state, move.to);
}

async function requireOp(db: PgQueryable, key: OpKey): Promise<OpRecord> {
  const op = await opByKey(db, key);
  if (op === undefined) throw new IllegalOpMoveError(describeOpKey(key), undefined, 'read');
  return op;
}

/** What a move stores: a result (in a blob when large) or an error, scrubbed of secrets. */
async function storedDetail(db: PgQueryable, turnId: string, move: OpMove): Promise<{ result: string | null; resultBlob: string | null; error: string | null }> {
  if ('error' in move) return { result: null, resultBlob: null, error: scrubJsonText(move.error) };
  if (!('result' in move)) return { result: null, resultBlob: null, error: null };
  const result = scrubJsonText(move.result);
  if (Buffer.byteLength(result) <= INLINE_LIMIT_BYTES) return { result, resultBlob: null, error: null };
  const blobs = new PendingBlobs();
  const digest = blobs.put(Buffer.from(result));
  await blobs.writeTo(db);
  await db.query(`INSERT INTO blob_refs (turn_id, digest, owner) VALUES ($1, $2, 'op') ON CONFLICT DO NOTHING`, [turnId, digest]);
  return { result: null, resultBlob: digest, error: null };
}

/** A PREPARED op has no result, so it refers to no blob. */
function resultOfNewOp(digest: string): never {
  throw new Error(`a new op cannot refer to blob ${digest}`);
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === UNIQUE_VIOLATION;
}
