import type { Database } from 'better-sqlite3';
import type { BlobStore } from '../blob_store.js';
import { callFingerprint, idempotencyKey } from '../call_fingerprint.js';
import { decodedPart, IllegalOpMoveError, LedgerIntentError, StaleTurnError } from '../errors.js';
import { describeOpKey, LEGAL_PRIOR_STATES, READ_ONLY_PRIOR_STATES, type OpIntent, type OpKey, type OpMove, type OpRecord, type OpState } from '../ledger_types.js';
import { scrubJsonText, scrubSecrets } from '../scrub.js';
import { FENCE, fenceHolds, fenceParams } from './fence.js';
import { opFromRow, type OpRow } from '../turn_rows.js';
import { statement } from './statements.js';
import { INLINE_LIMIT_BYTES } from '../stored_message.js';
import type { Lease } from '../turn_types.js';

/** The tool-call ledger's rows in SQLite; every write runs inside the caller's write transaction. */
export class SqliteLedger {
  constructor(
    private readonly db: Database,
    private readonly blobs: BlobStore,
  ) {}

  /**
   * Records one PREPARED op per intent with plain INSERTs: a (step, call id) already recorded
   * fails the whole transaction instead of replacing the row.
   */
  recordIntents(turnId: string, step: number, intents: readonly OpIntent[], now: number): OpRecord[] {
    const insert = statement(
      this.db,
      `INSERT INTO ops (turn_id, step, tool_call_id, tool_name, effect, state, idempotency_key, fingerprint, input, created_at, updated_at)
       VALUES (@turnId, @step, @toolCallId, @toolName, @effect, 'PREPARED', @idempotencyKey, @fingerprint, @input, @now, @now)`,
    );
    return intents.map((intent) => {
      const key = { turnId, step, toolCallId: intent.toolCallId };
      const input = scrubSecrets(intent.input);
      try {
        insert.run({ ...key, toolName: intent.toolName, effect: intent.effect, idempotencyKey: idempotencyKey(key), fingerprint: callFingerprint(intent.toolName, input), input: JSON.stringify(input), now });
      } catch (error) {
        if (isPrimaryKeyViolation(error)) throw new LedgerIntentError('already_recorded', intent.toolCallId);
        throw error;
      }
      return this.require(key);
    });
  }

  /**
   * One legal move, as one statement fenced by the turn's lease and conditioned on a legal prior
   * state. When it changes nothing, tells a stale writer from an illegal move.
   */
  move(lease: Lease, key: OpKey, move: OpMove, now: number): OpRecord {
    if (key.turnId !== lease.turnId) throw new StaleTurnError(key.turnId, `move op to ${move.to} with the lease of turn ${lease.turnId}`);
    const priors = priorStatesCondition(move.to);
    const detail = this.#detail(key.turnId, move);
    const changes =
      priors === undefined
        ? 0
        : statement(
            this.db,
            `UPDATE ops SET state = @to, result = COALESCE(@result, result), result_blob = COALESCE(@resultBlob, result_blob),
               error = COALESCE(@error, error), updated_at = @now
             WHERE turn_id = @turnId AND step = @step AND tool_call_id = @toolCallId AND ${priors}
               AND EXISTS (SELECT 1 FROM turns WHERE ${FENCE})`,
          ).run({ ...fenceParams(lease, now), step: key.step, toolCallId: key.toolCallId, to: move.to, ...detail }).changes;
    if (changes === 0) {
      if (!fenceHolds(this.db, lease, now)) throw new StaleTurnError(lease.turnId, `move op to ${move.to}`);
      throw new IllegalOpMoveError(describeOpKey(key), this.get(key)?.state, move.to);
    }
    return this.require(key);
  }

  get(key: OpKey): OpRecord | undefined {
    const row = statement(this.db, 'SELECT * FROM ops WHERE turn_id = @turnId AND step = @step AND tool_call_id = @toolCallId').get(key) as OpRow | undefined;
    return row === undefined ? undefined : opFromRow(row, (digest) => this.blobs.get(digest).toString('utf8'));
  }

  list(turnId: string): OpRecord[] {
    const rows = statement(this.db, 'SELECT * FROM ops WHERE turn_id = ? ORDER BY step, created_at, tool_call_id').all(turnId) as OpRow[];
    return rows.map((row) => decodedPart(turnId, 'ledger', () => opFromRow(row, (digest) => this.blobs.get(digest).toString('utf8'))));
  }

  require(key: OpKey): OpRecord {
    const op = this.get(key);
    if (op === undefined) throw new IllegalOpMoveError(describeOpKey(key), undefined, 'read');
    return op;
  }

  /** What a move stores: a result (in a blob when large) or an error, scrubbed of secrets. */
  #detail(turnId: string, move: OpMove): { result: string | null; resultBlob: string | null; error: string | null } {
    if ('error' in move) return { result: null, resultBlob: null, error: scrubJsonText(move.error) };
    if (!('result' in move)) return { result: null, resultBlob: null, error: null };
    const result = scrubJsonText(move.result);
    if (Buffer.byteLength(result) <= INLINE_LIMIT_BYTES) return { result, resultBlob: null, error: null };
    const digest = this.blobs.put(Buffer.from(result));
    statement(this.db, `INSERT OR IGNORE INTO blob_refs (turn_id, digest, owner) VALUES (?, ?, 'op')`).run(turnId, digest);
    return { result: null, resultBlob: digest, error: null };
  }
}

/** The SQL condition on an op's state (and effect) for a legal move to `to`; `undefined` when no owner may make it. */
function priorStatesCondition(to: OpState): string | undefined {
  const inList = (states: readonly OpState[]): string => `state IN (${states.map((state) => `'${state}'`).join(', ')})`;
  const any = LEGAL_PRIOR_STATES[to];
  const readOnly = READ_ONLY_PRIOR_STATES[to] ?? [];
  if (readOnly.length === 0) return any.length === 0 ? undefined : inList(any);
  return `(${inList(any)} OR (effect = 'read' AND ${inList(readOnly)}))`;
}

function isPrimaryKeyViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
