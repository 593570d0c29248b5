import type { Database } from 'better-sqlite3';
import type { IdFactory } from '../../core/ids.js';
import type { Lease, ResumeClaim } from '../turn_types.js';
import { statement } from './statements.js';
import type { SqliteTranscript } from './transcript.js';
import { requireTurn, turnById } from './turn_reads.js';

/**
 * Takes a suspended turn's lease for a resume (DESIGN §9): one conditional update on the
 * generation the caller read, so of several resumers exactly one wins.
 */
export function claimResume(db: Database, turnId: string, expectedGeneration: number, now: number, lease: { readonly ids: IdFactory; readonly leaseTtlMs: number }): ResumeClaim {
  const turn = turnById(db, turnId);
  if (turn === undefined) return { won: false, reason: 'not_found' };
  if (turn.status !== 'SUSPENDED') return { won: false, reason: 'not_suspended' };
  if (turn.generation !== expectedGeneration) return { won: false, reason: 'generation_changed' };
  const claimed: Lease = { turnId, generation: expectedGeneration + 1, token: lease.ids.newId(), revision: turn.revision + 1, expiresAt: now + lease.leaseTtlMs };
  const changes = statement(
    db,
    `UPDATE turns SET status = 'ACTIVE', generation = @newGeneration, revision = @revision, lease_token = @token, lease_expires_at = @expiresAt, resolution_untold = 0, updated_at = @now
     WHERE turn_id = @turnId AND status = 'SUSPENDED' AND generation = @expectedGeneration`,
  ).run({ ...claimed, newGeneration: claimed.generation, expectedGeneration, now }).changes;
  if (changes === 0) return { won: false, reason: 'not_suspended' };
  return { won: true, turn: requireTurn(db, turnId), lease: claimed };
}

/** Ends a suspended turn of that generation TERMINAL_REJECTED, its payload dropped; `false` when it was not. */
export function rejectSuspended(db: Database, transcript: SqliteTranscript, turnId: string, expectedGeneration: number, reason: string, now: number): boolean {
  const changes = statement(
    db,
    `UPDATE turns SET status = 'TERMINAL_REJECTED', failure_reason = @reason, payload_compacted = 1, revision = revision + 1, updated_at = @now
     WHERE turn_id = @turnId AND status = 'SUSPENDED' AND generation = @expectedGeneration`,
  ).run({ turnId, expectedGeneration, reason, now }).changes;
  if (changes === 1) transcript.compact(turnId);
  return changes === 1;
}
