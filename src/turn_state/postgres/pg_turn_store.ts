import type pg from 'pg';
import type { Clock } from '../../core/clock.js';
import type { IdFactory } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import type { InboundRecord, InboxEntry } from '../inbox_types.js';
import { validateIntents, type OpKey, type OpMove, type OpRecord } from '../ledger_types.js';
import type { PendingReply, ReplyAuthor, ReplyProgress } from '../reply_types.js';
import type { TurnStoreTimings } from '../store_options.js';
import type { CheckpointWrite, ModelTurnRecord, ResumableTurn, RetentionSweepResult, StartupSweepResult, TurnStore } from '../turn_store.js';
import type { Admission, AdmissionRequest, Lease, OwnerTerminalStatus, ResumeClaim, TurnRecord } from '../turn_types.js';
import { admitTurn } from './pg_admission.js';
import { PgCalls, pgCallError } from './pg_calls.js';
import { admissionFailed } from '../errors.js';
import { bumpTurn, databaseNow, extendLease } from './pg_fence.js';
import { acceptInbound, dropInbound, listInbox } from './pg_inbox.js';
import { heartbeatInstance } from './pg_instances.js';
import { moveOp, recordIntents } from './pg_ledger.js';
import { opsOfTurn } from './pg_op_reads.js';
import type { PgQueryable } from './pg_pool.js';
import { markResolutionTold, parkForResolution, resolvedUntold } from './pg_resolution.js';
import { pendingReplies, recordReplyDelivery, storeReply } from './pg_replies.js';
import { claimResume, rejectSuspended } from './pg_resume_claim.js';
import { sweepRetention } from './pg_retention.js';
import { suspendOwnerless } from './pg_sweeps.js';
import { appendTranscript, compactTranscript, latestCheckpoint, loadTranscript, writeCheckpoint } from './pg_transcript.js';
import { latestTurnIn, suspendedTurnsIn, turnById, type ChannelRef } from './pg_turn_reads.js';

export interface PgTurnStoreOptions extends TurnStoreTimings {
  /** Only for the durations of sweeps in the logs: every stored time and every expiry is the database's. */
  readonly clock: Clock;
  readonly ids: IdFactory;
  readonly logger: Logger;
  /** This process's id in the `instances` registry: the owner of the leases it takes (DESIGN §7.7). */
  readonly instanceId: string;
}

/**
 * The turn store on a PostgreSQL pool whose sessions resolve names in the store's schema, shared
 * with other processes (DESIGN §7.7). Closing the store does not end the pool: whoever opened the
 * pool ends it.
 */
export function pgTurnStoreOn(pool: pg.Pool, options: PgTurnStoreOptions): TurnStore {
  return new PgTurnStore(pool, options);
}

/** The turn store of one process on the shared database: fenced writes, each one transaction judged by the database's clock. */
export class PgTurnStore implements TurnStore {
  readonly #calls: PgCalls;

  constructor(
    pool: pg.Pool,
    private readonly options: PgTurnStoreOptions,
  ) {
    this.#calls = new PgCalls(pool, options.logger, options.clock);
  }

  async admit(request: AdmissionRequest): Promise<Admission> {
    try {
      return await this.#calls.inTransaction((db) => admitTurn(db, request, this.options));
    } catch (error) {
      return admissionFailed(pgCallError('admit turn', error), this.options.logger);
    }
  }

  acceptInbound(record: InboundRecord): Promise<number> {
    return this.#calls.write('accept inbound message', (db) => acceptInbound(db, record));
  }

  listInbox(source: string): Promise<InboxEntry[]> {
    return this.#calls.read('list inbox', (db) => listInbox(db, source));
  }

  dropInbound(id: number): Promise<void> {
    return this.#calls.write('drop inbound message', (db) => dropInbound(db, id));
  }

  getTurn(turnId: string): Promise<TurnRecord | undefined> {
    return this.#calls.read('read turn', (db) => turnById(db, turnId));
  }

  listSuspended(channel: ChannelRef): Promise<TurnRecord[]> {
    return this.#calls.read('list suspended turns', (db) => suspendedTurnsIn(db, channel));
  }

  latestTurnOf(channel: ChannelRef, requesterId: string): Promise<TurnRecord | undefined> {
    return this.#calls.read('find latest turn', (db) => latestTurnIn(db, channel, requesterId));
  }

  heartbeat(lease: Lease): Promise<void> {
    return this.#fenced('heartbeat', lease, (db, now) => extendLease(db, lease, now, this.options.leaseTtlMs));
  }

  setRecoveryDeadline(lease: Lease, deadlineAt: number): Promise<void> {
    return this.#fenced('set recovery deadline', lease, (db, now) => bumpTurn(db, lease, now, 'set recovery deadline', 'recovery_deadline_at = @deadlineAt', { deadlineAt }));
  }

  recordModelTurn(lease: Lease, record: ModelTurnRecord): Promise<OpRecord[]> {
    return this.#fenced('record model turn', lease, async (db, now) => {
      validateIntents(record.intents);
      await bumpTurn(db, lease, now, 'record model turn', 'last_progress_at = @now');
      await appendTranscript(db, lease.turnId, [record.assistant]);
      return recordIntents(db, lease.turnId, record.step, record.intents, now);
    });
  }

  moveOp(lease: Lease, key: OpKey, move: OpMove): Promise<OpRecord> {
    return this.#fenced(`move op to ${move.to}`, lease, (db, now) => moveOp(db, lease, key, move, now));
  }

  checkpoint(lease: Lease, write: CheckpointWrite): Promise<readonly OpRecord[]> {
    return this.#fenced('checkpoint', lease, async (db, now) => {
      const settled: OpRecord[] = [];
      for (const { key, move } of write.settle ?? []) settled.push(await moveOp(db, lease, key, move, now));
      await bumpTurn(db, lease, now, 'checkpoint', write.progressed ? 'last_progress_at = @now' : '');
      await writeCheckpoint(db, lease.turnId, await appendTranscript(db, lease.turnId, write.append), write.state, now);
      return settled;
    });
  }

  suspend(lease: Lease, reason: string): Promise<void> {
    return this.#fenced('suspend', lease, (db, now) =>
      bumpTurn(db, lease, now, 'suspend', `status = 'SUSPENDED', suspension_reason = @reason, lease_token = NULL, lease_expires_at = NULL, owner_instance = NULL`, { reason }),
    );
  }

  finish(lease: Lease, status: OwnerTerminalStatus, reason?: string): Promise<void> {
    return this.#fenced('finish', lease, (db, now) => this.#end(db, lease, now, status, reason));
  }

  complete(lease: Lease, reply: string, writtenBy?: ReplyAuthor): Promise<void> {
    return this.#fenced('complete', lease, async (db, now) => {
      await this.#end(db, lease, now, 'TERMINAL_COMPLETED', undefined);
      await storeReply(db, lease.turnId, reply, writtenBy, now);
    });
  }

  recordReplyDelivery(turnId: string, progress: ReplyProgress): Promise<void> {
    return this.#calls.write(`record reply ${progress.kind}`, (db) => recordReplyDelivery(db, turnId, progress));
  }

  listPendingReplies(): Promise<PendingReply[]> {
    return this.#calls.read('list pending replies', pendingReplies);
  }

  loadResumable(turnId: string): Promise<ResumableTurn | undefined> {
    return this.#calls.snapshot('load turn', async (db) => {
      const turn = await turnById(db, turnId);
      if (turn === undefined) return undefined;
      return { turn, checkpoint: await latestCheckpoint(db, turnId), transcript: await loadTranscript(db, turnId), ops: await opsOfTurn(db, turnId) };
    });
  }

  claimResume(turnId: string, expectedGeneration: number): Promise<ResumeClaim> {
    return this.#calls.write('claim resume', (db) => claimResume(db, turnId, expectedGeneration, this.options));
  }

  awaitResolution(lease: Lease, calls: readonly OpKey[], reason: string): Promise<void> {
    return this.#fenced('await resolution', lease, (db, now) => parkForResolution(db, lease, calls, reason, now));
  }

  listResolvedUntold(source: string): Promise<TurnRecord[]> {
    return this.#calls.read('list resolved turns', (db) => resolvedUntold(db, source));
  }

  markResolutionTold(turnId: string): Promise<boolean> {
    return this.#calls.write('mark resolution told', (db) => markResolutionTold(db, turnId));
  }

  rejectSuspended(turnId: string, expectedGeneration: number, reason: string): Promise<boolean> {
    return this.#calls.write('reject suspended turn', (db) => rejectSuspended(db, turnId, expectedGeneration, reason));
  }

  listOps(turnId: string): Promise<OpRecord[]> {
    return this.#calls.snapshot('list ops', (db) => opsOfTurn(db, turnId));
  }

  /** Suspends this process's own ACTIVE turns (none can be live at its start) and every turn whose lease expired; never another process's live turn. */
  sweepOnStartup(): Promise<StartupSweepResult> {
    return this.#calls.sweep('start-up sweep', async (db) => suspendOwnerless(db, await databaseNow(db), { kind: 'at_start', instanceId: this.options.instanceId }));
  }

  /** Suspends the turns whose lease expired by the database's clock, and records that this process is alive. */
  sweepExpiredLeases(): Promise<StartupSweepResult> {
    return this.#calls.sweep('expired-lease sweep', async (db) => {
      await heartbeatInstance(db, this.options.instanceId);
      return suspendOwnerless(db, await databaseNow(db), { kind: 'expired' });
    });
  }

  sweepRetention(): Promise<RetentionSweepResult> {
    return this.#calls.sweep('retention sweep', async (db) => sweepRetention(db, this.options, await databaseNow(db)));
  }

  probe(): Promise<void> {
    return this.#calls.write('probe', (db) => heartbeatInstance(db, this.options.instanceId));
  }

  /** Nothing to release: the pool belongs to whoever opened it, who ends it after closing every store on it. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  /** A fenced write: one transaction at the database's now, the lease put back as it was when it rolls back. */
  #fenced<T>(operation: string, lease: Lease, work: (db: PgQueryable, now: number) => Promise<T>): Promise<T> {
    return this.#calls.write(operation, async (db) => work(db, await databaseNow(db)), lease);
  }

  /** The terminal transition shared by `finish` and `complete`: status, lease and owner released, payload dropped. */
  async #end(db: PgQueryable, lease: Lease, now: number, status: OwnerTerminalStatus, reason: string | undefined): Promise<void> {
    await bumpTurn(db, lease, now, 'finish', `status = @status, failure_reason = @reason, lease_token = NULL, lease_expires_at = NULL, owner_instance = NULL, payload_compacted = 1`, {
      status,
      reason: reason ?? null,
    });
    await compactTranscript(db, lease.turnId);
  }
}
