import type { Database } from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import type { IdFactory } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import { BlobStore } from '../blob_store.js';
import { isIllegalOpMoveError, isLedgerIntentError, isStaleTurnError, StaleTurnError, TurnStateUnavailable } from '../errors.js';
import type { OpKey, OpMove, OpRecord } from '../ledger_types.js';
import { bumpTurn, FENCE, fenceParams } from './fence.js';
import { SqliteLedger, validateIntents } from './ledger.js';
import { blobDirectoryFor, openTurnDatabase } from './open.js';
import type { PendingReply, ReplyProgress, ReplyRecord } from '../reply_types.js';
import { SqliteReplies } from './replies.js';
import { admitTurn } from './admission.js';
import { statement } from './statements.js';
import { findTurnRow, latestTurnIn, requireTurn, suspendedTurnsIn, turnById, type ChannelRef } from './turn_reads.js';
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
  type TurnIdentity,
  type TurnRecord,
} from '../turn_types.js';

export interface SqliteTurnStoreOptions extends TurnStoreTimings {
  readonly dbPath: string;
  readonly clock: Clock;
  readonly ids: IdFactory;
  readonly logger: Logger;
}

/** A store that opened, or why it could not: the bot then runs without durability, loudly. */
export type OpenedTurnStore = { readonly available: true; readonly store: TurnStore } | { readonly available: false; readonly error: unknown };

/** Opens the SQLite turn store (DESIGN §7.1) on a file of its own; never throws. */
export function openSqliteTurnStore(options: SqliteTurnStoreOptions): OpenedTurnStore {
  try {
    return { available: true, store: sqliteTurnStoreOn(openTurnDatabase(options.dbPath), options) };
  } catch (error) {
    options.logger.error({ err: error, dbPath: options.dbPath }, 'the turn store could not open: turns are NOT durable until this is fixed');
    return { available: false, error };
  }
}

/**
 * The turn store on the store file's open connection, its blobs beside `options.dbPath`; closing it
 * closes the connection.
 * @throws when the blob directory cannot be made.
 */
export function sqliteTurnStoreOn(db: Database, options: SqliteTurnStoreOptions): TurnStore {
  return new SqliteTurnStore(db, BlobStore.open(blobDirectoryFor(options.dbPath)), options);
}

class SqliteTurnStore implements TurnStore {
  readonly #ledger: SqliteLedger;
  readonly #transcript: SqliteTranscript;
  readonly #replies: SqliteReplies;

  constructor(
    private readonly db: Database,
    private readonly blobs: BlobStore,
    private readonly options: SqliteTurnStoreOptions,
  ) {
    this.#ledger = new SqliteLedger(db, blobs);
    this.#transcript = new SqliteTranscript(db, blobs);
    this.#replies = new SqliteReplies(db);
  }

  admit(request: AdmissionRequest): Promise<Admission> {
    try {
      return Promise.resolve(this.#inWriteTransaction(() => admitTurn(this.db, request, this.#now(), this.options)));
    } catch (error) {
      this.options.logger.error({ err: error }, 'turn admission failed: the store is unavailable');
      return Promise.resolve({ disposition: 'store_unavailable', error });
    }
  }

  getTurn(turnId: string): Promise<TurnRecord | undefined> {
    return this.#run('read turn', () => turnById(this.db, turnId));
  }

  findTurn(identity: TurnIdentity): Promise<TurnRecord | undefined> {
    return this.#run('find turn', () => findTurnRow(this.db, identity));
  }

  listSuspended(channel: ChannelRef): Promise<TurnRecord[]> {
    return this.#run('list suspended turns', () => suspendedTurnsIn(this.db, channel));
  }

  latestTurnOf(channel: ChannelRef, requesterId: string): Promise<TurnRecord | undefined> {
    return this.#run('find latest turn', () => latestTurnIn(this.db, channel, requesterId));
  }

  heartbeat(lease: Lease): Promise<void> {
    return this.#write('heartbeat', () => {
      const now = this.#now();
      const expiresAt = now + this.options.leaseTtlMs;
      const changes = statement(
        this.db,
        `UPDATE turns SET lease_expires_at = MAX(lease_expires_at, @expiresAt) WHERE ${FENCE}`,
      ).run({ expiresAt, ...fenceParams(lease, now) }).changes;
      if (changes === 0) throw new StaleTurnError(lease.turnId, 'heartbeat');
      lease.expiresAt = Math.max(lease.expiresAt, expiresAt);
    }, lease);
  }

  setRecoveryDeadline(lease: Lease, deadlineAt: number): Promise<void> {
    return this.#write('set recovery deadline', () => bumpTurn(this.db, lease, this.#now(), 'set recovery deadline', 'recovery_deadline_at = @deadlineAt', { deadlineAt }), lease);
  }

  recordModelTurn(lease: Lease, record: ModelTurnRecord): Promise<OpRecord[]> {
    return this.#write('record model turn', () => {
      validateIntents(record.intents);
      const now = this.#now();
      bumpTurn(this.db, lease, now, 'record model turn', 'last_progress_at = @now');
      this.#transcript.append(lease.turnId, [record.assistant]);
      return this.#ledger.recordIntents(lease.turnId, record.step, record.intents, now);
    }, lease);
  }

  moveOp(lease: Lease, key: OpKey, move: OpMove): Promise<OpRecord> {
    return this.#write(`move op to ${move.to}`, () => this.#ledger.move(lease, key, move, this.#now()), lease);
  }

  checkpoint(lease: Lease, write: CheckpointWrite): Promise<void> {
    return this.#write('checkpoint', () => {
      const now = this.#now();
      bumpTurn(this.db, lease, now, 'checkpoint', write.progressed ? 'last_progress_at = @now' : '');
      const length = this.#transcript.append(lease.turnId, write.append);
      this.#transcript.checkpoint(lease.turnId, length, write.state, now);
    }, lease);
  }

  suspend(lease: Lease, reason: string): Promise<void> {
    return this.#write('suspend', () =>
      bumpTurn(this.db, lease, this.#now(), 'suspend', `status = 'SUSPENDED', suspension_reason = @reason, lease_token = NULL, lease_expires_at = NULL`, { reason }),
      lease,
    );
  }

  finish(lease: Lease, status: OwnerTerminalStatus, reason?: string): Promise<void> {
    return this.#write('finish', () => this.#end(lease, status, reason), lease);
  }

  complete(lease: Lease, reply: string): Promise<void> {
    return this.#write('complete', () => {
      this.#end(lease, 'TERMINAL_COMPLETED', undefined);
      this.#replies.store(lease.turnId, reply, this.#now());
    }, lease);
  }

  recordReplyDelivery(turnId: string, progress: ReplyProgress): Promise<void> {
    return this.#write(`record reply ${progress.kind}`, () => this.#replies.record(turnId, progress, this.#now()));
  }

  getReply(turnId: string): Promise<ReplyRecord | undefined> {
    return this.#run('read reply', () => this.#replies.get(turnId));
  }

  listPendingReplies(): Promise<PendingReply[]> {
    return this.#run('list pending replies', () => this.#replies.pending());
  }

  loadResumable(turnId: string): Promise<ResumableTurn | undefined> {
    return this.#run('load turn', () => {
      const turn = turnById(this.db, turnId);
      if (turn === undefined) return undefined;
      return { turn, checkpoint: this.#transcript.latestCheckpoint(turnId), transcript: this.#transcript.load(turnId), ops: this.#ledger.list(turnId) };
    });
  }

  claimResume(turnId: string, expectedGeneration: number): Promise<ResumeClaim> {
    return this.#write('claim resume', (): ResumeClaim => {
      const turn = turnById(this.db, turnId);
      if (turn === undefined) return { won: false, reason: 'not_found' };
      if (turn.status !== 'SUSPENDED') return { won: false, reason: 'not_suspended' };
      if (turn.generation !== expectedGeneration) return { won: false, reason: 'generation_changed' };
      const now = this.#now();
      const lease: Lease = { turnId, generation: expectedGeneration + 1, token: this.options.ids.newId(), revision: turn.revision + 1, expiresAt: now + this.options.leaseTtlMs };
      const changes = statement(
        this.db,
        `UPDATE turns SET status = 'ACTIVE', generation = @newGeneration, revision = @revision, lease_token = @token, lease_expires_at = @expiresAt, updated_at = @now
         WHERE turn_id = @turnId AND status = 'SUSPENDED' AND generation = @expectedGeneration`,
      ).run({ ...lease, newGeneration: lease.generation, expectedGeneration, now }).changes;
      if (changes === 0) return { won: false, reason: 'not_suspended' };
      return { won: true, turn: requireTurn(this.db, turnId), lease };
    });
  }

  rejectSuspended(turnId: string, expectedGeneration: number, reason: string): Promise<boolean> {
    return this.#write('reject suspended turn', () => {
      const changes = statement(
        this.db,
        `UPDATE turns SET status = 'TERMINAL_REJECTED', failure_reason = @reason, payload_compacted = 1, revision = revision + 1, updated_at = @now
         WHERE turn_id = @turnId AND status = 'SUSPENDED' AND generation = @expectedGeneration`,
      ).run({ turnId, expectedGeneration, reason, now: this.#now() }).changes;
      if (changes === 1) this.#transcript.compact(turnId);
      return changes === 1;
    });
  }

  listOps(turnId: string): Promise<OpRecord[]> {
    return this.#run('list ops', () => this.#ledger.list(turnId));
  }

  sweepOnStartup(): Promise<StartupSweepResult> {
    return this.#sweep('start-up sweep', () => suspendOwnerless(this.db, this.#now(), false));
  }

  sweepExpiredLeases(): Promise<StartupSweepResult> {
    return this.#sweep('expired-lease sweep', () => suspendOwnerless(this.db, this.#now(), true));
  }

  sweepRetention(): Promise<RetentionSweepResult> {
    return this.#sweep('retention sweep', () => sweepRetention(this.db, this.#transcript, this.blobs, this.options, this.#now()));
  }

  close(): Promise<void> {
    if (this.db.open) this.db.close();
    return Promise.resolve();
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

  #inWriteTransaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  /**
   * A write in one IMMEDIATE transaction; the store's own failures become TurnStateUnavailable,
   * the caller's become themselves. When it rolls back, the lease is put back as it was, so the
   * owner's copy never runs ahead of the row.
   */
  #write<T>(operation: string, work: () => T, lease?: Lease): Promise<T> {
    const before = lease === undefined ? undefined : { revision: lease.revision, expiresAt: lease.expiresAt };
    return this.#run(operation, () => {
      try {
        return this.#inWriteTransaction(work);
      } catch (error) {
        if (lease !== undefined && before !== undefined) Object.assign(lease, before);
        throw error;
      }
    });
  }

  #sweep<T extends StartupSweepResult | RetentionSweepResult>(operation: string, work: () => T): Promise<T> {
    return this.#write(operation, work).then((counts) => {
      const fields: Record<string, unknown> = { sweep: operation, ...counts };
      this.options.logger.info(fields, `${operation} done`);
      return counts;
    });
  }

  #run<T>(operation: string, work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      if (isStaleTurnError(error) || isIllegalOpMoveError(error) || isLedgerIntentError(error)) return Promise.reject(error);
      return Promise.reject(new TurnStateUnavailable(operation, error));
    }
  }
}
