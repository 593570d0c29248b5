import { StaleTurnError } from '../errors.js';
import type { Lease } from '../turn_types.js';
import { named } from './named_params.js';
import type { PgQueryable } from './pg_pool.js';

/**
 * The live fence of DESIGN §7.2 over the `turns` row: same generation, expected revision and
 * token, status ACTIVE, lease unexpired by the database's clock. Every fenced statement carries it
 * whole.
 */
export const FENCE = `turn_id = @turnId AND generation = @generation AND revision = @revision AND lease_token = @token AND status = 'ACTIVE' AND lease_expires_at > @now`;

export interface FenceParams {
  readonly turnId: string;
  readonly generation: number;
  readonly revision: number;
  readonly token: string;
  readonly now: number;
}

/**
 * The instant a write is judged and stamped at: the database's clock (`now_ms()`), read once at
 * the start of the write's transaction, never the caller's Clock (DESIGN §7.7). A write that then
 * waits for a row lock keeps this instant; that cannot let a superseded owner through, since every
 * takeover (sweep, resume claim) changes the row's status, token or generation under that lock.
 */
export async function databaseNow(db: PgQueryable): Promise<number> {
  const { rows } = await db.query<{ now: number }>('SELECT now_ms() AS now');
  const now = rows[0]?.now;
  if (now === undefined) throw new Error('the database did not say what time it is');
  return now;
}

/** The fence's parameters, read from the lease at the moment of the write. */
export function fenceParams(lease: Lease, now: number): FenceParams {
  return { turnId: lease.turnId, generation: lease.generation, revision: lease.revision, token: lease.token, now };
}

/**
 * The first statement of a fenced write that changes the turn: one UPDATE under the fence that
 * bumps the revision (and locks the row, so concurrent writers of the turn serialize), the
 * lease's revision advanced to the one the row now holds.
 * @throws {StaleTurnError} when the fence no longer holds; nothing changed.
 */
export async function bumpTurn(db: PgQueryable, lease: Lease, now: number, operation: string, set: string, params: Readonly<Record<string, unknown>> = {}): Promise<void> {
  const sql = `UPDATE turns SET revision = revision + 1, updated_at = @now${set === '' ? '' : `, ${set}`} WHERE ${FENCE} RETURNING revision`;
  const statement = named(sql, { ...params, ...fenceParams(lease, now) });
  const { rows } = await db.query<{ revision: number }>(statement.text, statement.values);
  const row = rows[0];
  if (row === undefined) throw new StaleTurnError(lease.turnId, operation);
  lease.revision = row.revision;
}

/**
 * The first statement of a fenced write that leaves the turn's row as it is (an op's move): the
 * fence checked with the row locked, so that no resume claim or sweep can take the turn before the
 * write commits.
 * @throws {StaleTurnError} when the fence no longer holds.
 */
export async function lockFence(db: PgQueryable, lease: Lease, now: number, operation: string): Promise<void> {
  const statement = named(`SELECT 1 FROM turns WHERE ${FENCE} FOR UPDATE`, { ...fenceParams(lease, now) });
  const { rowCount } = await db.query(statement.text, statement.values);
  if (rowCount === 0) throw new StaleTurnError(lease.turnId, operation);
}

/**
 * A heartbeat: the lease extended to the database's `now + ttlMs`, never moved backwards, without
 * bumping the revision or the progress time (DESIGN §7.2); the lease's expiry read back from the row.
 * @throws {StaleTurnError} when the lease is no longer the turn's.
 */
export async function extendLease(db: PgQueryable, lease: Lease, now: number, ttlMs: number): Promise<void> {
  const statement = named(
    `UPDATE turns SET lease_expires_at = GREATEST(lease_expires_at, CAST(@now AS BIGINT) + CAST(@ttl AS BIGINT)) WHERE ${FENCE} RETURNING lease_expires_at`,
    { ttl: ttlMs, ...fenceParams(lease, now) },
  );
  const { rows } = await db.query<{ lease_expires_at: number }>(statement.text, statement.values);
  const row = rows[0];
  if (row === undefined) throw new StaleTurnError(lease.turnId, 'heartbeat');
  lease.expiresAt = row.lease_expires_at;
}
