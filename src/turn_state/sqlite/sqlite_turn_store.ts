import type { Database } from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import type { IdFactory } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import { BlobStore } from '../blob_store.js';
import { validateIntents, type OpKey, type OpMove, type OpRecord } from '../ledger_types.js';
import { admissionFailed } from '../errors.js';
import { bumpTurn, extendLease } from './fence.js';
import { SqliteLedger } from './ledger.js';
import { blobDirectoryFor } from './open.js';
import type { PendingReply, ReplyAuthor, ReplyProgress } from '../reply_types.js';
import { SqliteReplies } from './replies.js';
import { admitTurn } from './admission.js';
import { acceptInbound, dropInbound, listInbox } from './inbox.js';
import type { InboundRecord, InboxEntry } from '../inbox_types.js';
import { claimResume, rejectSuspended } from './resume_claim.js';
import { markResolutionTold, parkForResolution, resolvedUntold } from './resolution.js';
import { SqliteOperatorStore } from './sqlite_operator_store.js';
import type { OperatorStore } from '../operator_store.js';
import { statement } from './statements.js';
import { sqliteCallError, StoreCalls } from './store_calls.js';
import { latestTurnIn, suspendedTurnsIn, turnById, type ChannelRef } from './turn_reads.js';
import { suspendOwnerless, sweepRetention } from './sweeps.js';
import { SqliteTranscript } from './transcript.js';
import type { TurnStoreTimings } from '../store_options.js';
import type { CheckpointWrite, ModelTurnRecord, ResumableTurn, RetentionSweepResult, StartupSweepResult, TurnStore } from '../turn_store.js';
import {
  type Admission,
  type AdmissionRequest,
  type Lease,
  type OwnerTerminalStatus,
  type ResumeClaim,
  type TurnRecord,
} from '../turn_types.js';

export interface SqliteTurnStoreOptions extends TurnStoreTimings {
  readonly dbPath: string;
  readonly clock: Clock;
  readonly ids: IdFactory;
  readonly logger: Logger;
}

/**
 * The turn store on the store file's open connection, its blobs beside `options.dbPath`; closing it
 * closes the connection.
 * @throws when the blob directory cannot be made.
 */
export function sqliteTurnStoreOn(db: Database, options: SqliteTurnStoreOptions): TurnStore {
  return new SqliteTurnStore(db, BlobStore.open(blobDirectoryFor(options.dbPath)), options);
}

/** The operators' view of the store file on the same connection (DESIGN §9.1). */
export function sqliteOperatorStoreOn(db: Database, options: SqliteTurnStoreOptions): OperatorStore {
  return new SqliteOperatorStore(db, BlobStore.open(blobDirectoryFor(options.dbPath)), new StoreCalls(db, options.logger, options.clock), () => options.clock.now());
}

class SqliteTurnStore implements TurnStore {
  readonly #ledger: SqliteLedger;
  readonly #transcript: SqliteTranscript;
  readonly #replies: SqliteReplies;
  readonly #calls: StoreCalls;

  constructor(
    private readonly db: Database,
    private readonly blobs: BlobStore,
    private readonly options: SqliteTurnStoreOptions,
  ) {
    this.#ledger = new SqliteLedger(db, blobs);
    this.#transcript = new SqliteTranscript(db, blobs);
    this.#replies = new SqliteReplies(db);
    this.#calls = new StoreCalls(db, options.logger, options.clock);
  }

  admit(request: AdmissionRequest): Promise<Admission> {
    try {
      return Promise.resolve(this.#calls.inWriteTransaction(() => admitTurn(this.db, this.#transcript, request, this.#now(), this.options)));
    } catch (error) {
      return admissionFailed(sqliteCallError(this.db, 'admit turn', error), this.options.logger);
    }
  }

  acceptInbound(record: InboundRecord): Promise<number> {
    return this.#calls.write('accept inbound message', () => acceptInbound(this.db, record, this.#now()));
  }

  listInbox(source: string): Promise<InboxEntry[]> {
    return this.#calls.run('list inbox', () => listInbox(this.db, source));
  }

  dropInbound(id: number): Promise<void> {
    return this.#calls.write('drop inbound message', () => dropInbound(this.db, id));
  }

  getTurn(turnId: string): Promise<TurnRecord | undefined> {
    return this.#calls.run('read turn', () => turnById(this.db, turnId));
  }

  listSuspended(channel: ChannelRef): Promise<TurnRecord[]> {
    return this.#calls.run('list suspended turns', () => suspendedTurnsIn(this.db, channel));
  }

  latestTurnOf(channel: ChannelRef, requesterId: string): Promise<TurnRecord | undefined> {
    return this.#calls.run('find latest turn', () => latestTurnIn(this.db, channel, requesterId));
  }

  heartbeat(lease: Lease): Promise<void> {
    return this.#calls.write('heartbeat', () => extendLease(this.db, lease, this.#now(), this.options.leaseTtlMs), lease);
  }

  setRecoveryDeadline(lease: Lease, deadlineAt: number): Promise<void> {
    return this.#calls.write('set recovery deadline', () => bumpTurn(this.db, lease, this.#now(), 'set recovery deadline', 'recovery_deadline_at = @deadlineAt', { deadlineAt }), lease);
  }

  recordModelTurn(lease: Lease, record: ModelTurnRecord): Promise<OpRecord[]> {
    return this.#calls.write('record model turn', () => {
      validateIntents(record.intents);
      const now = this.#now();
      bumpTurn(this.db, lease, now, 'record model turn', 'last_progress_at = @now');
      this.#transcript.append(lease.turnId, [record.assistant]);
      return this.#ledger.recordIntents(lease.turnId, record.step, record.intents, now);
    }, lease);
  }

  moveOp(lease: Lease, key: OpKey, move: OpMove): Promise<OpRecord> {
    return this.#calls.write(`move op to ${move.to}`, () => this.#ledger.move(lease, key, move, this.#now()), lease);
  }

  checkpoint(lease: Lease, write: CheckpointWrite): Promise<readonly OpRecord[]> {
    return this.#calls.write('checkpoint', () => {
      const now = this.#now();
      const settled = (write.settle ?? []).map(({ key, move }) => this.#ledger.move(lease, key, move, now));
      bumpTurn(this.db, lease, now, 'checkpoint', write.progressed ? 'last_progress_at = @now' : '');
      const length = this.#transcript.append(lease.turnId, write.append);
      this.#transcript.checkpoint(lease.turnId, length, write.state, now);
      return settled;
    }, lease);
  }

  suspend(lease: Lease, reason: string): Promise<void> {
    return this.#calls.write('suspend', () =>
      bumpTurn(this.db, lease, this.#now(), 'suspend', `status = 'SUSPENDED', suspension_reason = @reason, lease_token = NULL, lease_expires_at = NULL`, { reason }),
      lease,
    );
  }

  finish(lease: Lease, status: OwnerTerminalStatus, reason?: string): Promise<void> {
    return this.#calls.write('finish', () => this.#end(lease, status, reason), lease);
  }

  complete(lease: Lease, reply: string, writtenBy?: ReplyAuthor): Promise<void> {
    return this.#calls.write('complete', () => {
      this.#end(lease, 'TERMINAL_COMPLETED', undefined);
      this.#replies.store(lease.turnId, reply, writtenBy, this.#now());
    }, lease);
  }

  recordReplyDelivery(turnId: string, progress: ReplyProgress): Promise<void> {
    return this.#calls.write(`record reply ${progress.kind}`, () => this.#replies.record(turnId, progress, this.#now()));
  }

  listPendingReplies(): Promise<PendingReply[]> {
    return this.#calls.run('list pending replies', () => this.#replies.pending());
  }

  loadResumable(turnId: string): Promise<ResumableTurn | undefined> {
    return this.#calls.run('load turn', () => {
      const turn = turnById(this.db, turnId);
      if (turn === undefined) return undefined;
      return { turn, checkpoint: this.#transcript.latestCheckpoint(turnId), transcript: this.#transcript.load(turnId), ops: this.#ledger.list(turnId) };
    });
  }

  claimResume(turnId: string, expectedGeneration: number): Promise<ResumeClaim> {
    return this.#calls.write('claim resume', () => claimResume(this.db, turnId, expectedGeneration, this.#now(), this.options));
  }

  awaitResolution(lease: Lease, calls: readonly OpKey[], reason: string): Promise<void> {
    return this.#calls.write('await resolution', () => parkForResolution(this.db, lease, calls, reason, this.#now()), lease);
  }

  listResolvedUntold(source: string): Promise<TurnRecord[]> {
    return this.#calls.run('list resolved turns', () => resolvedUntold(this.db, source));
  }

  markResolutionTold(turnId: string): Promise<boolean> {
    return this.#calls.write('mark resolution told', () => markResolutionTold(this.db, turnId));
  }

  rejectSuspended(turnId: string, expectedGeneration: number, reason: string): Promise<boolean> {
    return this.#calls.write('reject suspended turn', () => rejectSuspended(this.db, this.#transcript, turnId, expectedGeneration, reason, this.#now()));
  }

  listOps(turnId: string): Promise<OpRecord[]> {
    return this.#calls.run('list ops', () => this.#ledger.list(turnId));
  }

  sweepOnStartup(): Promise<StartupSweepResult> {
    return this.#calls.sweep('start-up sweep', () => suspendOwnerless(this.db, this.#now(), false));
  }

  sweepExpiredLeases(): Promise<StartupSweepResult> {
    return this.#calls.sweep('expired-lease sweep', () => suspendOwnerless(this.db, this.#now(), true));
  }

  sweepRetention(): Promise<RetentionSweepResult> {
    return this.#calls.sweep('retention sweep', () => sweepRetention(this.db, this.#transcript, this.blobs, this.options, this.#now()));
  }

  probe(): Promise<void> {
    return this.#calls.write('probe', () => {
      statement(this.db, 'INSERT INTO store_probe (id, probed_at) VALUES (1, @now) ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at').run({ now: this.#now() });
    });
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    await this.#calls.settle();
    this.db.close();
  }

  /** The terminal transition shared by `finish` and `complete`: status, lease released, payload dropped. */
  #end(lease: Lease, status: OwnerTerminalStatus, reason: string | undefined): void {
    bumpTurn(this.db, lease, this.#now(), 'finish', `status = @status, failure_reason = @reason, lease_token = NULL, lease_expires_at = NULL, payload_compacted = 1`, {
      status,
      reason: reason ?? null,
    });
    this.#transcript.compact(lease.turnId);
  }

  #now(): number {
    return this.options.clock.now();
  }
}
