import type { StoreCensus } from './operator_store.js';

/** The counts an operator watches, in one statement both backends run as it is. */
export const CENSUS_SQL = `SELECT
  (SELECT COUNT(*) FROM turns WHERE status = 'ACTIVE') AS active,
  (SELECT COUNT(*) FROM turns WHERE status = 'SUSPENDED') AS suspended,
  (SELECT COUNT(*) FROM turns WHERE status = 'AWAITING_RESOLUTION') AS awaiting_resolution,
  (SELECT COUNT(*) FROM ops WHERE state = 'MANUAL_RESOLUTION_REQUIRED') AS calls_awaiting_verdict,
  (SELECT COUNT(*) FROM replies WHERE state = 'pending') AS replies_pending,
  (SELECT COUNT(*) FROM ops JOIN turns ON turns.turn_id = ops.turn_id WHERE ops.state = 'RUNNING' AND turns.status <> 'ACTIVE') AS stranded_calls`;

/** The row {@link CENSUS_SQL} answers. */
export interface CensusRow {
  readonly active: number;
  readonly suspended: number;
  readonly awaiting_resolution: number;
  readonly calls_awaiting_verdict: number;
  readonly replies_pending: number;
  readonly stranded_calls: number;
}

/** The census a {@link CENSUS_SQL} row holds; `undefined` (no row) is the store failing. */
export function censusFromRow(row: CensusRow | undefined): StoreCensus {
  if (row === undefined) throw new Error('the census statement answered no row');
  return {
    active: row.active,
    suspended: row.suspended,
    awaitingResolution: row.awaiting_resolution,
    callsAwaitingVerdict: row.calls_awaiting_verdict,
    repliesPending: row.replies_pending,
    strandedCalls: row.stranded_calls,
  };
}
