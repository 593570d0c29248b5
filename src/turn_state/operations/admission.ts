import { assertNever } from '../../core/assert_never.js';
import type { IdFactory } from '../../core/ids.js';
import { turnFromRow, type TurnRow } from '../turn_rows.js';
import type { Admission, AdmissionRequest, Lease, TurnRecord } from '../turn_types.js';
import { dropInbound } from './inbox.js';
import { rideAlong } from './lease_writes.js';
import { admitUsage } from './usage.js';
import { now, queryOne, type Op } from './instructions.js';
import { suspendOwnerless } from './sweeps.js';
import { appendTranscript, writeCheckpoint } from './transcript.js';
import { requireTurn, turnOfMessage } from './turn_reads.js';

/** What admission needs to make a lease: fresh ids, its length, and the process that will own it. */
export interface LeaseOptions {
  readonly ids: IdFactory;
  readonly leaseTtlMs: number;
  readonly instanceId: string;
}

/**
 * Admits a message as a new ACTIVE turn owned by this process, with the transcript it starts from
 * and its first checkpoint, or says why it must not run fresh (DESIGN §8); the inbox entry the
 * message waited in is taken out either way (DESIGN §8.1). The database decides between processes
 * admitting the same message: one inserts the turn, the others find it there.
 */
export function* admitTurn(request: AdmissionRequest, options: LeaseOptions): Op<Admission> {
  if (request.inboxId !== undefined) yield* dropInbound(request.inboxId);
  const at = yield* now();
  const existing = yield* turnOfMessage(request.identity);
  if (existing !== undefined) return yield* dispositionOf(existing, at);
  if (request.usage !== undefined) {
    const counted = yield* admitUsage(request.usage);
    if (counted.kind === 'refused') return { disposition: 'limited', refusal: counted };
  }
  const turnId = options.ids.newId();
  const token = options.ids.newId();
  const row = yield* queryOne<TurnRow>(
    `INSERT INTO turns (turn_id, source, channel_id, message_id, requester_id, message_digest, status, generation, revision, lease_token, lease_expires_at,
       owner_instance, created_at, updated_at, last_progress_at, traces)
     VALUES (@turnId, @source, @channelId, @messageId, @requesterId, @messageDigest, 'ACTIVE', 1, 1, @token, CAST(@now AS BIGINT) + CAST(@ttl AS BIGINT),
       @instanceId, @now, @now, @now, @trace)
     ON CONFLICT (source, channel_id, message_id) DO NOTHING
     RETURNING *`,
    {
      ...request.identity,
      turnId,
      requesterId: request.requesterId,
      messageDigest: request.messageDigest,
      token,
      ttl: options.leaseTtlMs,
      instanceId: options.instanceId,
      now: at,
      trace: request.trace ?? null,
    },
  );
  if (row === undefined) return yield* dispositionOf(yield* admittedMeanwhile(request), at);
  const turn = turnFromRow(row);
  const lease: Lease = { turnId: turn.turnId, generation: 1, revision: 1, token, expiresAt: row.lease_expires_at ?? at };
  yield* writeCheckpoint(turn.turnId, yield* appendTranscript(turn.turnId, request.start.transcript), request.start.state, at);
  yield* rideAlong(turn.turnId, request.riders);
  return { disposition: 'admitted', turn, lease };
}

/** The turn another process admitted for the message since this admission looked. */
function* admittedMeanwhile(request: AdmissionRequest): Op<TurnRecord> {
  const existing = yield* turnOfMessage(request.identity);
  if (existing === undefined) throw new Error(`the turn of message ${request.identity.messageId} was deleted while it was being admitted`);
  return existing;
}

/** An existing identity never runs fresh; an ACTIVE turn whose lease expired is suspended here and points at resume. */
function* dispositionOf(existing: TurnRecord, at: number): Op<Admission> {
  if (existing.status !== 'ACTIVE' || (existing.leaseExpiresAt ?? 0) > at) return settled(existing);
  yield* suspendOwnerless(at, { kind: 'turn', turnId: existing.turnId });
  return settled(yield* requireTurn(existing.turnId));
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
    case 'AWAITING_APPROVAL':
      return { disposition: 'awaiting_approval', turn };
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
