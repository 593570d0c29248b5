import { decodedPart } from '../errors.js';
import type { OpKey, OpRecord } from '../ledger_types.js';
import { opFromRow, type OpRow } from '../turn_rows.js';
import { blobsOfTurn } from './pg_blobs.js';
import type { PgQueryable } from './pg_pool.js';

/** One op of the ledger, its result read back from its blob when it is kept in one. */
export async function opByKey(db: PgQueryable, key: OpKey): Promise<OpRecord | undefined> {
  const { rows } = await db.query<OpRow>('SELECT * FROM ops WHERE turn_id = $1 AND step = $2 AND tool_call_id = $3', [key.turnId, key.step, key.toolCallId]);
  const row = rows[0];
  if (row === undefined) return undefined;
  const blobs = await blobsOfTurn(db, key.turnId);
  return opFromRow(row, (digest) => blobs.get(digest).toString('utf8'));
}

/** A turn's ops in the order they were proposed; a row that cannot be decoded makes the turn undecodable. */
export async function opsOfTurn(db: PgQueryable, turnId: string): Promise<OpRecord[]> {
  const { rows } = await db.query<OpRow>('SELECT * FROM ops WHERE turn_id = $1 ORDER BY step, created_at, tool_call_id', [turnId]);
  if (rows.length === 0) return [];
  const blobs = await blobsOfTurn(db, turnId);
  return rows.map((row) => decodedPart(turnId, 'ledger', () => opFromRow(row, (digest) => blobs.get(digest).toString('utf8'))));
}
