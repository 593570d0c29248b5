import type { Database } from 'better-sqlite3';
import type { StoreCensus } from '../operator_store.js';
import { statement } from './statements.js';

/** The counts an operator watches, read in one snapshot of the store file. */
export function storeCensus(db: Database): StoreCensus {
  const turns = statement(
    db,
    `SELECT COALESCE(SUM(status = 'ACTIVE'), 0) AS active, COALESCE(SUM(status = 'SUSPENDED'), 0) AS suspended,
       COALESCE(SUM(status = 'AWAITING_RESOLUTION'), 0) AS awaiting FROM turns WHERE status IN ('ACTIVE', 'SUSPENDED', 'AWAITING_RESOLUTION')`,
  ).get() as { active: number; suspended: number; awaiting: number };
  const calls = statement(db, `SELECT COUNT(*) AS n FROM ops WHERE state = 'MANUAL_RESOLUTION_REQUIRED'`).get() as { n: number };
  const replies = statement(db, `SELECT COUNT(*) AS n FROM replies WHERE state = 'pending'`).get() as { n: number };
  return { active: turns.active, suspended: turns.suspended, awaitingResolution: turns.awaiting, callsAwaitingVerdict: calls.n, repliesPending: replies.n };
}
