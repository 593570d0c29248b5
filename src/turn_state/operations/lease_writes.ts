/**
 * The writes of a turn's lease holder (DESIGN §7.2, §7.3): each one transaction, fenced by the
 * lease, stamped with the store's now. A lease that is no longer the turn's changes nothing and
 * is refused with StaleTurnError.
 */
import { validateIntents, type OpKey, type OpMove, type OpRecord } from '../ledger_types.js';
import type { LeaseRiders } from '../lease_riders.js';
import type { ReplyAuthor } from '../reply_types.js';
import type { CheckpointWrite, ModelTurnRecord } from '../turn_store.js';
import type { Lease, OwnerTerminalStatus } from '../turn_types.js';
import { bumpTurn, extendLease } from './fence.js';
import { appendHistory } from './history.js';
import { now, query, type Op } from './instructions.js';
import { moveOp, recordIntents } from './ledger.js';
import { storeReply } from './replies.js';
import { appendTranscript, compactTranscript, writeCheckpoint } from './transcript.js';
import { recordUsage } from './usage.js';

/** A heartbeat: the lease extended by `ttlMs` from now, never moved backwards, nothing else changed. */
export function* heartbeat(lease: Lease, ttlMs: number): Op<void> {
  yield* extendLease(lease, yield* now(), ttlMs);
}

/** The absolute time the current generation's recovery budget runs out (DESIGN §7.3). */
export function* setRecoveryDeadline(lease: Lease, deadlineAt: number): Op<void> {
  yield* bumpTurn(lease, yield* now(), 'set recovery deadline', 'recovery_deadline_at = @deadlineAt', { deadlineAt });
}

/** "Intent recorded": the model's answer and one PREPARED op per proposed call, before any of them runs. */
export function* recordModelTurn(lease: Lease, record: ModelTurnRecord, riders?: LeaseRiders): Op<OpRecord[]> {
  validateIntents(record.intents);
  const at = yield* now();
  yield* bumpTurn(lease, at, 'record model turn', 'last_progress_at = @now');
  yield* appendTranscript(lease.turnId, [record.assistant]);
  const ops = yield* recordIntents(lease.turnId, record.step, record.intents, at);
  yield* rideAlong(lease.turnId, riders);
  return ops;
}

/** One legal move of one op ("call marked running", "call settled"). */
export function* moveLeasedOp(lease: Lease, key: OpKey, move: OpMove): Op<OpRecord> {
  return yield* moveOp(lease, key, move, yield* now());
}

/** "Step checkpointed" and "guard checkpointed": the moves a read-only step kept, the rows to append and the loop state that covers them. */
export function* checkpoint(lease: Lease, write: CheckpointWrite, riders?: LeaseRiders): Op<readonly OpRecord[]> {
  const at = yield* now();
  const settled: OpRecord[] = [];
  for (const { key, move } of write.settle ?? []) settled.push(yield* moveOp(lease, key, move, at));
  yield* bumpTurn(lease, at, 'checkpoint', write.progressed ? 'last_progress_at = @now' : '');
  yield* writeCheckpoint(lease.turnId, yield* appendTranscript(lease.turnId, write.append), write.state, at);
  yield* rideAlong(lease.turnId, riders);
  return settled;
}

/** The turn suspended with its work kept, its lease and owner released. */
export function* suspend(lease: Lease, reason: string, riders?: LeaseRiders): Op<void> {
  yield* bumpTurn(lease, yield* now(), 'suspend', `status = 'SUSPENDED', suspension_reason = @reason, lease_token = NULL, lease_expires_at = NULL, owner_instance = NULL`, { reason });
  yield* rideAlong(lease.turnId, riders);
}

/** The turn ended in `status`, its lease and owner released, its payload dropped. */
export function* finish(lease: Lease, status: OwnerTerminalStatus, reason: string | undefined, riders?: LeaseRiders): Op<void> {
  yield* end(lease, yield* now(), status, reason);
  yield* rideAlong(lease.turnId, riders);
}

/** The turn completed with its reply stored pending delivery, in the same transaction. */
export function* complete(lease: Lease, reply: string, writtenBy: ReplyAuthor | undefined, riders?: LeaseRiders): Op<void> {
  const at = yield* now();
  yield* end(lease, at, 'TERMINAL_COMPLETED', undefined);
  yield* storeReply(lease.turnId, reply, writtenBy, at);
  yield* rideAlong(lease.turnId, riders);
}

/** What rides with a write of the turn `turnId`, in its transaction, once the write itself went through (DESIGN §7.3). */
export function* rideAlong(turnId: string, riders: LeaseRiders | undefined): Op<void> {
  if (riders === undefined) return;
  const { usage, deadlineAt, history } = riders;
  if (deadlineAt !== undefined) yield* query('UPDATE turns SET recovery_deadline_at = @deadlineAt WHERE turn_id = @turnId', { turnId, deadlineAt });
  if (usage !== undefined) yield* recordUsage(usage.identity, usage.requesterId, usage.calls);
  if (history !== undefined) yield* appendHistory(history.channel, history.entry);
}

function* end(lease: Lease, at: number, status: OwnerTerminalStatus, reason: string | undefined): Op<void> {
  yield* bumpTurn(lease, at, 'finish', `status = @status, failure_reason = @reason, lease_token = NULL, lease_expires_at = NULL, owner_instance = NULL, payload_compacted = 1`, {
    status,
    reason: reason ?? null,
  });
  yield* compactTranscript(lease.turnId);
}
