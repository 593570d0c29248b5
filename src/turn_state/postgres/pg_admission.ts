import { assertNever } from '../../core/assert_never.js';
import type { IdFactory } from '../../core/ids.js';
import { turnFromRow, type TurnRow } from '../turn_rows.js';
import type { Admission, AdmissionRequest, Lease, TurnRecord } from '../turn_types.js';
import { named } from './named_params.js';
import { databaseNow } from './pg_fence.js';
import { dropInbound } from './pg_inbox.js';
import type { PgQueryable } from './pg_pool.js';
import { suspendOwnerless } from './pg_sweeps.js';
import { appendTranscript, writeCheckpoint } from './pg_transcript.js';
import { requireTurn, turnOfMessage } from './pg_turn_reads.js';

/** What admission needs to make a lease: fresh ids, its length, and the process that will own it. */
export interface AdmissionOptions {
  readonly ids: IdFactory;
  readonly leaseTtlMs: number;
  readonly instanceId: string;
}

const ADMIT = `INSERT INTO turns (turn_id, source, channel_id, message_id, requester_id, message_digest, status, generation, revision, lease_token, lease_expires_at,
    owner_instance, created_at, updated_at, last_progress_at)
  VALUES (@turnId, @source, @channelId, @messageId, @requesterId, @messageDigest, 'ACTIVE', 1, 1, @token, CAST(@now AS BIGINT) + CAST(@ttl AS BIGINT),
    @instanceId, @now, @now, @now)
  ON CONFLICT (source, channel_id, message_id) DO NOTHING
  RETURNING *`;

/**
 * Admits a message as a new ACTIVE turn owned by this process, with the transcript it starts from
 * and its first checkpoint, or says why it must not run fresh (DESIGN §8), inside the caller's
 * write transaction; the inbox entry the message waited in is taken out either way (DESIGN §8.1).
 * The database decides between processes admitting the same message: one inserts the turn, the
 * others wait for it and find it there.
 */
export async function admitTurn(db: PgQueryable, request: AdmissionRequest, options: AdmissionOptions): Promise<Admission> {
  if (request.inboxId !== undefined) await dropInbound(db, request.inboxId);
  const now = await databaseNow(db);
  const token = options.ids.newId();
  const insert = named(ADMIT, {
    ...request.identity,
    turnId: options.ids.newId(),
    requesterId: request.requesterId,
    messageDigest: request.messageDigest,
    token,
    ttl: options.leaseTtlMs,
    instanceId: options.instanceId,
    now,
  });
  const row = (await db.query<TurnRow>(insert.text, insert.values)).rows[0];
  if (row === undefined) return dispositionOf(db, request, now);
  const turn = turnFromRow(row);
  const lease: Lease = { turnId: turn.turnId, generation: 1, revision: 1, token, expiresAt: row.lease_expires_at ?? now };
  await writeCheckpoint(db, turn.turnId, await appendTranscript(db, turn.turnId, request.start.transcript), request.start.state, now);
  return { disposition: 'admitted', turn, lease };
}

/** An existing identity never runs fresh; an ACTIVE turn whose lease expired is suspended here and points at resume. */
async function dispositionOf(db: PgQueryable, request: AdmissionRequest, now: number): Promise<Admission> {
  const existing = await turnOfMessage(db, request.identity);
  if (existing === undefined) throw new Error(`the turn of message ${request.identity.messageId} was deleted while it was being admitted`);
  if (existing.status !== 'ACTIVE' || (existing.leaseExpiresAt ?? 0) > now) return settled(existing);
  await suspendOwnerless(db, now, { kind: 'turn', turnId: existing.turnId });
  return settled(await requireTurn(db, existing.turnId));
}

/** What an existing turn means for its message; an ACTIVE one still has a live owner. */
function settled(turn: TurnRecord): Admission {
  switch (turn.status) {
    case 'ACTIVE':
      return { disposition: 'in_progress', turn };
    case 'SUSPENDED':
      return { disposition: 'resumable', turn };
    case 'AWAITING_RESOLUTION':
      return { disposition: 'awaiting_resolution', turn };
    case 'TERMINAL_COMPLETED':
    case 'TERMINAL_FAILED':
    case 'TERMINAL_CANCELLED':
    case 'TERMINAL_REJECTED':
    case 'TERMINAL_EXPIRED':
      return { disposition: 'already_processed', turn };
    default:
      return assertNever(turn.status);
  }
}
