import { turnFromRow, type TurnRow } from '../turn_rows.js';
import type { ResumeClaim } from '../turn_types.js';
import type { LeaseOptions } from './admission.js';
import { now, query, queryOne, type Op } from './instructions.js';
import { compactTranscript } from './transcript.js';
import { turnById } from './turn_reads.js';

/**
 * Takes a suspended turn's lease for a resume (DESIGN §9): one conditional UPDATE on status
 * SUSPENDED and the generation the caller read, decided by the database, so of several resumers
 * in any number of processes exactly one wins. The lease expires `leaseTtlMs` after now, and the
 * claiming process owns it. A winning claim of a turn whose requester was still to be told of the
 * operators' verdicts takes the telling over, under the same conditions, so that no announcement
 * tells it too (DESIGN §9.1). `trace`, the resumed run's `traceparent`, is added to the turn's
 * traces in the same statement (DESIGN §10.3).
 */
export function* claimResume(turnId: string, expectedGeneration: number, options: LeaseOptions, trace?: string): Op<ResumeClaim> {
  const turn = yield* turnById(turnId);
  if (turn === undefined) return { won: false, reason: 'not_found' };
  if (turn.status !== 'SUSPENDED') return { won: false, reason: 'not_suspended' };
  if (turn.generation !== expectedGeneration) return { won: false, reason: 'generation_changed' };
  const at = yield* now();
  const token = options.ids.newId();
  const told = yield* query(`UPDATE turns SET resolution_untold = 0 WHERE turn_id = @turnId AND status = 'SUSPENDED' AND generation = @expectedGeneration AND resolution_untold = 1`, {
    turnId,
    expectedGeneration,
  });
  const row = yield* queryOne<TurnRow>(
    `UPDATE turns SET status = 'ACTIVE', generation = generation + 1, revision = revision + 1, lease_token = @token,
       lease_expires_at = CAST(@now AS BIGINT) + CAST(@ttl AS BIGINT), owner_instance = @instanceId, updated_at = @now,
       traces = CASE WHEN CAST(@trace AS TEXT) IS NULL THEN traces WHEN traces IS NULL THEN CAST(@trace AS TEXT) ELSE traces || ' ' || CAST(@trace AS TEXT) END
     WHERE turn_id = @turnId AND status = 'SUSPENDED' AND generation = @expectedGeneration
     RETURNING *`,
    { turnId, expectedGeneration, token, now: at, ttl: options.leaseTtlMs, instanceId: options.instanceId, trace: trace ?? null },
  );
  if (row === undefined) return { won: false, reason: 'not_suspended' };
  const claimed = turnFromRow(row);
  const lease = { turnId, generation: claimed.generation, revision: claimed.revision, token, expiresAt: row.lease_expires_at ?? at };
  return { won: true, turn: claimed, lease, toldResolution: told.changes === 1 };
}

/** Ends a suspended turn of that generation TERMINAL_REJECTED, its payload dropped; `false` when it was not. */
export function* rejectSuspended(turnId: string, expectedGeneration: number, reason: string): Op<boolean> {
  const { changes } = yield* query(
    `UPDATE turns SET status = 'TERMINAL_REJECTED', failure_reason = @reason, payload_compacted = 1, owner_instance = NULL, revision = revision + 1, updated_at = @now
     WHERE turn_id = @turnId AND status = 'SUSPENDED' AND generation = @expectedGeneration`,
    { turnId, expectedGeneration, reason, now: yield* now() },
  );
  if (changes !== 1) return false;
  yield* compactTranscript(turnId);
  return true;
}
