import type { StoreCensus } from '../operator_store.js';
import type { PgQueryable } from './pg_pool.js';

const CENSUS_SQL = `SELECT
  (SELECT COUNT(*) FROM turns WHERE status = 'ACTIVE') AS active,
  (SELECT COUNT(*) FROM turns WHERE status = 'SUSPENDED') AS suspended,
  (SELECT COUNT(*) FROM turns WHERE status = 'AWAITING_RESOLUTION') AS awaiting_resolution,
  (SELECT COUNT(*) FROM ops WHERE state = 'MANUAL_RESOLUTION_REQUIRED') AS calls_awaiting_verdict,
  (SELECT COUNT(*) FROM replies WHERE state = 'pending') AS replies_pending`;

interface CensusRow {
  readonly active: number;
  readonly suspended: number;
  readonly awaiting_resolution: number;
  readonly calls_awaiting_verdict: number;
  readonly replies_pending: number;
}

/**
 * The counts an operator watches, read in one statement (one snapshot): live turns by status, of
 * every process sharing the store, calls waiting for an operator's verdict, and final replies
 * whose delivery was never confirmed.
 */
export async function storeCensus(db: PgQueryable): Promise<StoreCensus> {
  const row = (await db.query<CensusRow>(CENSUS_SQL)).rows[0];
  if (row === undefined) throw new Error('the census statement answered no row');
  return {
    active: row.active,
    suspended: row.suspended,
    awaitingResolution: row.awaiting_resolution,
    callsAwaitingVerdict: row.calls_awaiting_verdict,
    repliesPending: row.replies_pending,
  };
}
