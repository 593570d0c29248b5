import type { Clock } from '../../core/clock.js';
import type { IdFactory } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import { isTurnStateUnavailable } from '../errors.js';
import type { HistoryStore } from '../history_store.js';
import { MAX_NOTE_LENGTH, noteLength, type MemoryStore } from '../memory_store.js';
import type { ModelChoiceStore } from '../model_choice_store.js';
import type { BackupCopy, OperatorStore } from '../operator_store.js';
import type { TurnStoreTimings } from '../store_options.js';
import { reportSweep } from '../sweep_report.js';
import type { RetentionSweepResult, StartupSweepResult, TurnStore } from '../turn_store.js';
import type { Admission, Lease } from '../turn_types.js';
import { admitTurn } from './admission.js';
import { answerApproval, approvalByKey, approvalRulesIn, expiredApprovals, expireApprovals, noteApprovalMessage, parkForApproval } from './approvals.js';
import { appendHistory, compactHistory, editHistory, historyRevision, readHistory, removeFromHistory } from './history.js';
import { acceptInbound, dropInbound, listInbox } from './inbox.js';
import { now, type Op } from './instructions.js';
import { opsOfTurn } from './ledger.js';
import { checkpoint, complete, finish, heartbeat, moveLeasedOp, recordModelTurn, setRecoveryDeadline, suspend } from './lease_writes.js';
import { recallNotes, rememberNote } from './memory.js';
import { chooseModel, chosenModel, clearModel } from './model_choices.js';
import { operatorPort } from './operator_port.js';
import { pendingReplies, recordReplyDelivery } from './replies.js';
import { markResolutionTold, parkForResolution, resolvedUntold } from './resolution.js';
import { claimResume, rejectSuspended } from './resume_claim.js';
import { suspendOwnerless, sweepRetention, type Ownerless } from './sweeps.js';
import { latestCheckpoint, loadTranscript } from './transcript.js';
import { latestTurnIn, suspendedTurnsIn, turnById } from './turn_reads.js';
import { admitUsage, recordUsage, sweepUsage, turnSpent, usageReport } from './usage.js';
import type { UsageStore } from '../usage_store.js';

/**
 * How a backend runs the store's operations: its transactions and commit mechanics, and what it
 * checks and copies of itself. The store's own failures reject as TurnStateUnavailable; a fence,
 * ledger or intent refusal stays itself; any other error passes as it is (DESIGN §9.3).
 */
/**
 * How a write commits where the backend can choose (SQLite): `grouped` with the writes asked for
 * in the same turn of the event loop, the log synced off the loop; `alone` in a transaction of its
 * own, synced as it commits — for a write that rarely has company (a history's compaction, a note). PostgreSQL commits every transaction alone.
 */
export type CommitMode = 'grouped' | 'alone';

export interface StoreRunner {
  /** `op` in a write transaction of its own, answered once it is durable. */
  write<T>(operation: string, op: Op<T>, commit?: CommitMode): Promise<T>;
  /** `op` over what is durable, its statements seeing one snapshot. */
  read<T>(operation: string, op: Op<T>): Promise<T>;
  /** One small durable write of the backend's own, for the readiness check. */
  probe(): Promise<void>;
  /** The database's own check of its pages, and of the blobs rows refer to. */
  storageProblems(): Promise<string[]>;
  /** A consistent copy of the whole store at the new file `path`; a database server refuses with BackupWithOwnToolsError. */
  backup(path: string): Promise<BackupCopy>;
  /** Commits what waits and lets go of the connections. */
  close(): Promise<void>;
}

/** What the store of one process needs beside its runner. */
export interface DurableStoreOptions extends TurnStoreTimings {
  readonly ids: IdFactory;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The process that owns the leases it takes (DESIGN §7.7). */
  readonly instanceId: string;
  /** Which ACTIVE turns have no live owner when the process starts: on SQLite every one, on PostgreSQL its own and the expired. */
  readonly ownerlessAtStart: Ownerless;
}

/** Every port of one durable store. */
export interface DurablePorts {
  readonly turns: TurnStore;
  readonly operator: OperatorStore;
  readonly history: HistoryStore;
  readonly memory: MemoryStore;
  readonly models: ModelChoiceStore;
  readonly usage: UsageStore;
}

/**
 * The store's ports over `runner`: each operation written once (src/turn_state/operations), run
 * by the backend's driver in the backend's transactions. A lease holder's write that fails puts
 * the lease back as it was, so the owner's copy never runs ahead of the row; each sweep's counts
 * are logged for the operators (DESIGN §10).
 */
export function durableStore(runner: StoreRunner, options: DurableStoreOptions): DurablePorts {
  const leases = { ids: options.ids, leaseTtlMs: options.leaseTtlMs, instanceId: options.instanceId };
  const leased = async <T>(operation: string, lease: Lease, op: Op<T>): Promise<T> => {
    const before = { revision: lease.revision, expiresAt: lease.expiresAt };
    try {
      return await runner.write(operation, op);
    } catch (error) {
      Object.assign(lease, before);
      throw error;
    }
  };
  const swept = async <T extends StartupSweepResult | RetentionSweepResult>(operation: string, op: Op<T>): Promise<T> => {
    const startedAt = options.clock.monotonicNow();
    const result = await runner.write(operation, op);
    reportSweep(options.logger, operation, options.clock.monotonicNow() - startedAt, result);
    return result;
  };
  const turns: TurnStore = {
    durable: true,
    admit: async (request) => {
      try {
        return await runner.write('admit turn', admitTurn(request, leases));
      } catch (error) {
        if (!isTurnStateUnavailable(error)) throw error;
        options.logger.error({ err: error }, 'turn admission failed: the store is unavailable');
        return { disposition: 'store_unavailable', error } satisfies Admission;
      }
    },
    acceptInbound: (record) => runner.write('accept inbound message', acceptInbound(record)),
    listInbox: (source) => runner.read('list inbox', listInbox(source)),
    dropInbound: (id) => runner.write('drop inbound message', dropInbound(id)),
    getTurn: (turnId) => runner.read('read turn', turnById(turnId)),
    listSuspended: (channel) => runner.read('list suspended turns', suspendedTurnsIn(channel)),
    latestTurnOf: (channel, requesterId) => runner.read('find latest turn', latestTurnIn(channel, requesterId)),
    heartbeat: (lease) => leased('heartbeat', lease, heartbeat(lease, options.leaseTtlMs)),
    setRecoveryDeadline: (lease, deadlineAt) => leased('set recovery deadline', lease, setRecoveryDeadline(lease, deadlineAt)),
    recordModelTurn: (lease, record, riders) => leased('record model turn', lease, recordModelTurn(lease, record, riders)),
    moveOp: (lease, key, move) => leased(`move op to ${move.to}`, lease, moveLeasedOp(lease, key, move)),
    checkpoint: (lease, write, riders) => leased('checkpoint', lease, checkpoint(lease, write, riders)),
    suspend: (lease, reason, riders) => leased('suspend', lease, suspend(lease, reason, riders)),
    finish: (lease, status, reason, riders) => leased('finish', lease, finish(lease, status, reason, riders)),
    complete: (lease, reply, writtenBy, riders) => leased('complete', lease, complete(lease, reply, writtenBy, riders)),
    recordReplyDelivery: (turnId, progress) => runner.write(`record reply ${progress.kind}`, recordReplyDelivery(turnId, progress)),
    listPendingReplies: () => runner.read('list pending replies', pendingReplies()),
    loadResumable: (turnId) => runner.read('load turn', loadResumable(turnId)),
    claimResume: (turnId, expectedGeneration, trace) => runner.write('claim resume', claimResume(turnId, expectedGeneration, leases, trace)),
    awaitResolution: (lease, calls, reason) => leased('await resolution', lease, parkAt(lease, calls, reason)),
    awaitApproval: (lease, calls, timeoutMs) => leased('await approval', lease, parkForApproval(lease, calls, timeoutMs)),
    answerApproval: (answer) => runner.write('answer approval', answerApproval(answer), 'alone'),
    // A read first: the watch looks every 2 s, and only a request past its time needs a write.
    expireApprovals: async () => ((await runner.read('find expired approvals', expiredApprovals())).length === 0 ? [] : runner.write('expire approvals', expireApprovals())),
    findApproval: (approvalId) => runner.read('find approval', approvalByKey(approvalId)),
    noteApprovalMessage: (call, messageId) => runner.write('note approval message', noteApprovalMessage(call, messageId)),
    approvalRules: (channel) => runner.read('read approval rules', approvalRulesIn(channel)),
    listResolvedUntold: (source) => runner.read('list resolved turns', resolvedUntold(source)),
    markResolutionTold: (turnId) => runner.write('mark resolution told', markResolutionTold(turnId)),
    rejectSuspended: (turnId, expectedGeneration, reason) => runner.write('reject suspended turn', rejectSuspended(turnId, expectedGeneration, reason)),
    listOps: (turnId) => runner.read('list ops', opsOfTurn(turnId)),
    sweepOnStartup: () => swept('start-up sweep', sweepAt(options.ownerlessAtStart)),
    sweepExpiredLeases: () => swept('expired-lease sweep', sweepAt({ kind: 'expired' })),
    sweepRetention: () => swept('retention sweep', retentionAt(options)),
    probe: () => runner.probe(),
    close: () => runner.close(),
  };
  return { turns, operator: operatorPort(runner), ...keptStores(runner) };
}

/** The conversation history, the memory notes, the channels' chosen models and the usage over `runner`: what even a store in memory keeps. */
export function keptStores(runner: StoreRunner): Pick<DurablePorts, 'history' | 'memory' | 'models' | 'usage'> {
  const history: HistoryStore = {
    append: (channel, entry) => runner.write('append history', appendHistory(channel, entry)),
    read: (channel) => runner.read('read history', readHistory(channel)),
    revision: (channel) => runner.read('read history revision', historyRevision(channel)),
    compact: (channel, compaction) => runner.write('compact history', compactHistory(channel, compaction), 'alone'),
    edit: (channel, messageId, text) => runner.write('edit history', editHistory(channel, messageId, text), 'alone'),
    remove: (channel, messageIds) => runner.write('remove from history', removeFromHistory(channel, messageIds), 'alone'),
  };
  const memory: MemoryStore = {
    remember: (request) => {
      const length = noteLength(request.text);
      if (length > MAX_NOTE_LENGTH) return Promise.resolve({ kind: 'too_long', length, max: MAX_NOTE_LENGTH });
      return runner.write('remember a note', rememberNote(request), 'alone');
    },
    recall: (request) => {
      if (!Number.isInteger(request.limit) || request.limit < 1) return Promise.reject(new RangeError(`recall limit must be a positive integer, got ${request.limit}`));
      return runner.read('recall notes', recallNotes(request));
    },
  };
  const models: ModelChoiceStore = {
    chosen: (channel) => runner.read('read chosen model', chosenModel(channel)),
    choose: (channel, model, chosenBy) => runner.write('choose model', chooseModel(channel, model, chosenBy), 'alone'),
    clear: (channel) => runner.write('clear chosen model', clearModel(channel), 'alone'),
  };
  const usage: UsageStore = {
    admit: (request) => runner.write('count turn usage', admitUsage(request)),
    record: (identity, requesterId, calls) => runner.write('record model usage', recordUsage(identity, requesterId, calls)),
    turnSpent: (identity) => runner.read('read turn usage', turnSpent(identity)),
    report: (query) => runner.read('report usage', usageReport(query)),
    sweep: (retention) => runner.write('usage sweep', sweepUsage(retention)),
  };
  return { history, memory, models, usage };
}

function* loadResumable(turnId: string) {
  const turn = yield* turnById(turnId);
  if (turn === undefined) return undefined;
  return { turn, checkpoint: yield* latestCheckpoint(turnId), transcript: yield* loadTranscript(turnId), ops: yield* opsOfTurn(turnId) };
}

function* parkAt(lease: Lease, calls: Parameters<typeof parkForResolution>[1], reason: string): Op<void> {
  yield* parkForResolution(lease, calls, reason, yield* now());
}

function* sweepAt(which: Ownerless): Op<StartupSweepResult> {
  return yield* suspendOwnerless(yield* now(), which);
}

function* retentionAt(timings: TurnStoreTimings): Op<RetentionSweepResult> {
  return yield* sweepRetention(timings, yield* now());
}
