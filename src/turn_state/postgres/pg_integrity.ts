import type { PgQueryable } from './pg_pool.js';

/**
 * What the PostgreSQL store checks of itself. The database vouches for its own pages and keys, so
 * these are the invariants of the store's rows that no constraint states: every blob a row refers
 * to is stored, a lease is held exactly while a turn is ACTIVE, a parked turn awaits a verdict on
 * some call, and a checkpoint covers no more transcript than is stored.
 */
const PROBLEMS_SQL = `
  SELECT 'blob ' || digest || ' is referenced but missing from the blobs table' AS problem, 1 AS kind, digest AS subject
  FROM (SELECT digest FROM blob_refs UNION SELECT digest FROM history_blob_refs EXCEPT SELECT digest FROM blobs) AS missing
  UNION ALL
  SELECT 'turn ' || turn_id || ' is ACTIVE without a lease', 2, turn_id FROM turns
  WHERE status = 'ACTIVE' AND (lease_token IS NULL OR lease_expires_at IS NULL)
  UNION ALL
  SELECT 'turn ' || turn_id || ' is ' || status || ' but holds a lease', 3, turn_id FROM turns
  WHERE status <> 'ACTIVE' AND (lease_token IS NOT NULL OR lease_expires_at IS NOT NULL)
  UNION ALL
  SELECT 'turn ' || turn_id || ' is AWAITING_RESOLUTION but no call of it awaits a verdict', 4, turn_id FROM turns
  WHERE status = 'AWAITING_RESOLUTION' AND NOT EXISTS (SELECT 1 FROM ops WHERE ops.turn_id = turns.turn_id AND ops.state = 'MANUAL_RESOLUTION_REQUIRED')
  UNION ALL
  SELECT 'turn ' || checkpoints.turn_id || ' has a checkpoint covering ' || transcript_length || ' transcript rows but ' || COUNT(transcript.seq) || ' are stored', 5, checkpoints.turn_id
  FROM checkpoints LEFT JOIN transcript ON transcript.turn_id = checkpoints.turn_id
  GROUP BY checkpoints.turn_id, checkpoints.seq, transcript_length HAVING transcript_length > COUNT(transcript.seq)
  ORDER BY kind, subject, problem`;

/** The problems found in the store's rows, in a stable order; none when healthy. */
export async function integrityProblems(db: PgQueryable): Promise<string[]> {
  const { rows } = await db.query<{ problem: string }>(PROBLEMS_SQL);
  return rows.map((row) => row.problem);
}
