import type { Database } from 'better-sqlite3';
import type { IdFactory } from '../../core/ids.js';
import { dropInbound } from './inbox.js';
import { statement } from './statements.js';
import { suspendOwnerless } from './sweeps.js';
import type { SqliteTranscript } from './transcript.js';
import { findTurnRow, requireTurn } from './turn_reads.js';
import { isTerminalStatus, type Admission, type AdmissionRequest, type Lease, type TurnRecord } from '../turn_types.js';

/**
 * Admits a message as a new ACTIVE turn holding a fresh lease, with the transcript it starts from
 * and its first checkpoint, or says why it must not run fresh (DESIGN §8), inside the caller's
 * write transaction; the inbox entry the message waited in is taken out either way (DESIGN §8.1).
 */
export function admitTurn(db: Database, transcript: SqliteTranscript, request: AdmissionRequest, now: number, options: { readonly ids: IdFactory; readonly leaseTtlMs: number }): Admission {
  if (request.inboxId !== undefined) dropInbound(db, request.inboxId);
  const existing = findTurnRow(db, request.identity);
  if (existing !== undefined) return dispositionOf(db, existing, now);
  const lease: Lease = { turnId: options.ids.newId(), generation: 1, revision: 1, token: options.ids.newId(), expiresAt: now + options.leaseTtlMs };
  statement(
    db,
    `INSERT INTO turns (turn_id, source, channel_id, message_id, requester_id, message_digest, status, generation, revision, lease_token, lease_expires_at,
       created_at, updated_at, last_progress_at)
     VALUES (@turnId, @source, @channelId, @messageId, @requesterId, @messageDigest, 'ACTIVE', 1, 1, @token, @expiresAt, @now, @now, @now)`,
  ).run({ ...request.identity, requesterId: request.requesterId, messageDigest: request.messageDigest, turnId: lease.turnId, token: lease.token, expiresAt: lease.expiresAt, now });
  transcript.checkpoint(lease.turnId, transcript.append(lease.turnId, request.start.transcript), request.start.state, now);
  return { disposition: 'admitted', turn: requireTurn(db, lease.turnId), lease };
}

/** An existing identity never runs fresh; an ACTIVE turn whose owner is gone is suspended here and points at resume. */
function dispositionOf(db: Database, turn: TurnRecord, now: number): Admission {
  if (isTerminalStatus(turn.status)) return { disposition: 'already_processed', turn };
  if (turn.status === 'SUSPENDED') return { disposition: 'resumable', turn };
  if (turn.status === 'AWAITING_RESOLUTION') return { disposition: 'awaiting_resolution', turn };
  if ((turn.leaseExpiresAt ?? 0) > now) return { disposition: 'in_progress', turn };
  suspendOwnerless(db, now, true);
  return { disposition: 'resumable', turn: requireTurn(db, turn.turnId) };
}
