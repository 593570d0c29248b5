/**
 * The fence of DESIGN §7.2 over a turn's row: same generation, expected revision and token,
 * status ACTIVE, lease unexpired by the store's clock. Every write of a lease holder carries it
 * whole, and is refused with {@link StaleTurnError}, changing nothing, when it no longer holds.
 */
import { StaleTurnError } from '../errors.js';
import type { Lease } from '../turn_types.js';
import { dialect, query, queryOne, type Op, type Params } from './instructions.js';

export const FENCE = `turn_id = @turnId AND generation = @generation AND revision = @revision AND lease_token = @token AND status = 'ACTIVE' AND lease_expires_at > @now`;

/** The fence's parameters, read from the lease at the moment of the write. */
export function fenceParams(lease: Lease, now: number): Params {
  return { turnId: lease.turnId, generation: lease.generation, revision: lease.revision, token: lease.token, now };
}

/**
 * The fenced UPDATE of the turn that bumps its revision, with `set` besides, and the lease's
 * revision advanced to the row's: the expected value, the new one and the owner's copy all come
 * from one statement under the write lock (on PostgreSQL, the row's lock, so concurrent writers of
 * the turn take turns).
 * @throws {StaleTurnError} when the fence no longer holds; nothing changed.
 */
export function* bumpTurn(lease: Lease, now: number, operation: string, set: string, params: Params = {}): Op<void> {
  const row = yield* queryOne<{ revision: number }>(`UPDATE turns SET revision = revision + 1, updated_at = @now${set === '' ? '' : `, ${set}`} WHERE ${FENCE} RETURNING revision`, {
    ...params,
    ...fenceParams(lease, now),
  });
  if (row === undefined) throw new StaleTurnError(lease.turnId, operation);
  lease.revision = row.revision;
}

/**
 * The fence checked for a write that leaves the turn's row as it is (an op's move), the row
 * locked until the write commits, so that no resume claim or sweep takes the turn meanwhile.
 * @throws {StaleTurnError} when the fence no longer holds.
 */
export function* lockFence(lease: Lease, now: number, operation: string): Op<void> {
  const { forUpdate } = yield* dialect();
  const { rows } = yield* query(`SELECT 1 AS held FROM turns WHERE ${FENCE}${forUpdate}`, fenceParams(lease, now));
  if (rows.length === 0) throw new StaleTurnError(lease.turnId, operation);
}

/**
 * A heartbeat: the lease extended to `now + ttlMs`, never moved backwards, without bumping the
 * revision or the progress time (DESIGN §7.2); the lease's expiry read back from the row.
 * @throws {StaleTurnError} when the lease is no longer the turn's.
 */
export function* extendLease(lease: Lease, now: number, ttlMs: number): Op<void> {
  const { greatest } = yield* dialect();
  const row = yield* queryOne<{ lease_expires_at: number }>(
    `UPDATE turns SET lease_expires_at = ${greatest('lease_expires_at', 'CAST(@now AS BIGINT) + CAST(@ttl AS BIGINT)')} WHERE ${FENCE} RETURNING lease_expires_at`,
    { ttl: ttlMs, ...fenceParams(lease, now) },
  );
  if (row === undefined) throw new StaleTurnError(lease.turnId, 'heartbeat');
  lease.expiresAt = row.lease_expires_at;
}
