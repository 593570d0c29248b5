import type { Database } from 'better-sqlite3';
import { CENSUS_SQL, censusFromRow, type CensusRow } from '../census_query.js';
import type { StoreCensus } from '../operator_store.js';
import { statement } from './statements.js';

/**
 * The counts an operator watches, read in one statement: live turns by status, calls waiting for
 * an operator's verdict, and final replies whose delivery was never confirmed.
 */
export function storeCensus(db: Database): StoreCensus {
  return censusFromRow(statement(db, CENSUS_SQL).get() as CensusRow | undefined);
}
