import type { Database } from 'better-sqlite3';
import { StaleTurnError } from '../errors.js';
import { statement } from './statements.js';
import type { Lease } from '../turn_types.js';

/**
 * The live fence of DESIGN §7.2 over the `turns` row: same generation, expected revision and
 * token, status ACTIVE, lease unexpired. Every fenced statement carries it whole.
 */
export const FENCE = `turn_id = @turnId AND generation = @generation AND revision = @revision AND lease_token = @token AND status = 'ACTIVE' AND lease_expires_at > @now`;

export interface FenceParams {
  readonly turnId: string;
  readonly generation: number;
  readonly revision: number;
  readonly token: string;
  readonly now: number;
}

/** The fence's parameters, read from the lease at the moment of the write. */
export function fenceParams(lease: Lease, now: number): FenceParams {
  return { turnId: lease.turnId, generation: lease.generation, revision: lease.revision, token: lease.token, now };
}

/**
 * Runs one fenced UPDATE of the turn that bumps its revision, inside the caller's write
 * transaction, and advances `lease.revision` in the same synchronous step, so the expected value,
 * the new value and the lease copy all come from one read under the write lock.
 * @throws {StaleTurnError} when the fence no longer holds; nothing changed.
 */
export function bumpTurn(db: Database, lease: Lease, now: number, operation: string, set: string, params: Readonly<Record<string, unknown>> = {}): void {
  const sql = `UPDATE turns SET revision = revision + 1, updated_at = @now${set === '' ? '' : `, ${set}`} WHERE ${FENCE}`;
  const changes = statement(db, sql).run({ ...params, ...fenceParams(lease, now) }).changes;
  if (changes === 0) throw new StaleTurnError(lease.turnId, operation);
  lease.revision += 1;
}

/** Whether the lease is still the turn's, for telling a stale writer from an illegal move. */
export function fenceHolds(db: Database, lease: Lease, now: number): boolean {
  return statement(db, `SELECT 1 FROM turns WHERE ${FENCE}`).get(fenceParams(lease, now)) !== undefined;
}

/**
 * A heartbeat: the lease extended to `now + ttlMs`, never moved backwards, without bumping the
 * revision or the progress time (DESIGN §7.2).
 * @throws {StaleTurnError} when the lease is no longer the turn's.
 */
export function extendLease(db: Database, lease: Lease, now: number, ttlMs: number): void {
  const expiresAt = now + ttlMs;
  const changes = statement(db, `UPDATE turns SET lease_expires_at = MAX(lease_expires_at, @expiresAt) WHERE ${FENCE}`).run({ expiresAt, ...fenceParams(lease, now) }).changes;
  if (changes === 0) throw new StaleTurnError(lease.turnId, 'heartbeat');
  lease.expiresAt = Math.max(lease.expiresAt, expiresAt);
}
