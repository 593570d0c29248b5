import { CENSUS_SQL, censusFromRow, type CensusRow } from '../census_query.js';
import type { StoreCensus } from '../operator_store.js';
import type { PgQueryable } from './pg_pool.js';

/**
 * The counts an operator watches, read in one statement (one snapshot): live turns by status, of
 * every process sharing the store, calls waiting for an operator's verdict, and final replies
 * whose delivery was never confirmed.
 */
export async function storeCensus(db: PgQueryable): Promise<StoreCensus> {
  return censusFromRow((await db.query<CensusRow>(CENSUS_SQL)).rows[0]);
}
