import type { IdFactory } from '../../core/ids.js';
import { turnFromRow, type TurnRow } from '../turn_rows.js';
import type { ResumeClaim } from '../turn_types.js';
import { named } from './named_params.js';
import { databaseNow } from './pg_fence.js';
import type { PgQueryable } from './pg_pool.js';
import { compactTranscript } from './pg_transcript.js';
import { turnById } from './pg_turn_reads.js';

/** What a claim needs to make a lease: fresh tokens, its length, and the process that will own it. */
export interface ClaimOptions {
  readonly ids: IdFactory;
  readonly leaseTtlMs: number;
  readonly instanceId: string;
}

/**
 * Takes a suspended turn's lease for a resume (DESIGN §9) inside the caller's write transaction:
 * one conditional UPDATE on status SUSPENDED and the generation the caller read, decided by the
 * database, so of several resumers in any number of processes exactly one wins. The lease
 * expires `leaseTtlMs` after the database's now, and this process owns it.
 */
export async function claimResume(db: PgQueryable, turnId: string, expectedGeneration: number, options: ClaimOptions): Promise<ResumeClaim> {
  const turn = await turnById(db, turnId);
  if (turn === undefined) return { won: false, reason: 'not_found' };
  if (turn.status !== 'SUSPENDED') return { won: false, reason: 'not_suspended' };
  if (turn.generation !== expectedGeneration) return { won: false, reason: 'generation_changed' };
  const now = await databaseNow(db);
  const token = options.ids.newId();
  const claim = named(
    `UPDATE turns SET status = 'ACTIVE', generation = generation + 1, revision = revision + 1, lease_token = @token,
       lease_expires_at = CAST(@now AS BIGINT) + CAST(@ttl AS BIGINT), owner_instance = @instanceId, resolution_untold = 0, updated_at = @now
     WHERE turn_id = @turnId AND status = 'SUSPENDED' AND generation = @expectedGeneration
     RETURNING *`,
    { turnId, expectedGeneration, token, now, ttl: options.leaseTtlMs, instanceId: options.instanceId },
  );
  const row = (await db.query<TurnRow>(claim.text, claim.values)).rows[0];
  if (row === undefined) return { won: false, reason: 'not_suspended' };
  const claimed = turnFromRow(row);
  return { won: true, turn: claimed, lease: { turnId, generation: claimed.generation, revision: claimed.revision, token, expiresAt: row.lease_expires_at ?? now } };
}

/** Ends a suspended turn of that generation TERMINAL_REJECTED, its payload dropped; `false` when it was not. */
export async function rejectSuspended(db: PgQueryable, turnId: string, expectedGeneration: number, reason: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE turns SET status = 'TERMINAL_REJECTED', failure_reason = $3, payload_compacted = 1, owner_instance = NULL, revision = revision + 1, updated_at = now_ms()
     WHERE turn_id = $1 AND status = 'SUSPENDED' AND generation = $2`,
    [turnId, expectedGeneration, reason],
  );
  if (rowCount !== 1) return false;
  await compactTranscript(db, turnId);
  return true;
}
