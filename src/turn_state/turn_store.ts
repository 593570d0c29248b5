import type { JsonObject, Message } from '../llm/protocol.js';
import type { ApprovalStore } from './approval_store.js';
import type { InboundRecord, InboxEntry } from './inbox_types.js';
import type { EffectClass, OpIntent, OpKey, OpMove, OpRecord, OpSettlement } from './ledger_types.js';
import type { LeaseRiders } from './lease_riders.js';
import type { PendingReply, ReplyAuthor, ReplyProgress } from './reply_types.js';
import type { Admission, AdmissionRequest, CheckpointRecord, Lease, OwnerTerminalStatus, ResumeClaim, TurnRecord } from './turn_types.js';

/** What the model answered at one step, recorded at "intent recorded" before any tool runs. */
export interface ModelTurnRecord {
  readonly step: number;
  readonly assistant: Message;
  readonly intents: readonly OpIntent[];
}

/** Transcript rows to append and the loop state that covers them ("step checkpointed", "guard checkpointed"). */
export interface CheckpointWrite {
  readonly append: readonly Message[];
  readonly state: unknown;
  /** Whether this checkpoint records real progress (a model turn, a tool result); only then does the resume clock restart. */
  readonly progressed: boolean;
  /** Moves written in the same transaction, before the checkpoint: how a read-only step settles its calls (DESIGN §7.3). */
  readonly settle?: readonly OpSettlement[];
}

/** Everything a resume needs: the latest checkpoint, the whole transcript and the ledger (DESIGN §7.4). */
export interface ResumableTurn {
  readonly turn: TurnRecord;
  readonly checkpoint: CheckpointRecord | undefined;
  readonly transcript: readonly Message[];
  readonly ops: readonly OpRecord[];
}

/** A call whose outcome became OUTCOME_UNKNOWN, and whose turn it was; `input` as the ledger keeps it. */
export interface UncertainCall extends OpKey {
  readonly channelId: string;
  readonly requesterId: string;
  readonly toolName: string;
  readonly effect: EffectClass;
  readonly input: JsonObject;
  /** Why its outcome is unknown. */
  readonly error: string | null;
}

/** Counts from a sweep, for the housekeeping log. */
export interface StartupSweepResult {
  readonly suspendedTurns: number;
  readonly unknownOps: number;
  /** The turns this sweep suspended, so that their channels can be told once. */
  readonly turnIds: readonly string[];
  /** The RUNNING calls this sweep made OUTCOME_UNKNOWN, in ledger order. */
  readonly uncertainCalls: readonly UncertainCall[];
}

export interface RetentionSweepResult {
  /** Suspended turns whose resume window closed: now TERMINAL_EXPIRED, payload dropped. */
  readonly expiredTurns: number;
  /** Turns past payload retention whose diagnostic payload was dropped (tombstones). */
  readonly tombstonedTurns: number;
  /** Ledger rows past ledger retention, deleted (never OUTCOME_UNKNOWN or MANUAL_RESOLUTION_REQUIRED). */
  readonly deletedOps: number;
  /** Tombstones with no ledger rows left, past ledger retention, deleted. */
  readonly deletedTurns: number;
  /** Blob files no row refers to any more. */
  readonly deletedBlobs: number;
  /** Replies still undelivered past payload retention, given up (text dropped). */
  readonly abandonedReplies: number;
  /** Usage rows past their retention: detailed ones past the payload's, daily totals past `usage_retention_days`. */
  readonly deletedUsageRows: number;
  /** The turns this sweep expired, tombstoned or deleted. */
  readonly turnIds: readonly string[];
}

/**
 * The writes of a turn's lease holder — the engine, through its TurnDurability (DESIGN §7.2,
 * §7.3): each one transaction, changing something only while the lease is the turn's (same
 * generation, revision and token, status ACTIVE, lease unexpired), and otherwise refused with
 * `StaleTurnError`, having changed nothing. A failure of the store itself throws
 * `TurnStateUnavailable`. `riders` go in the same transaction, only when the write goes through.
 */
export interface LeaseHolderStore {
  /** Extends the lease to `now + ttl` without moving it backwards, the revision or the progress time. */
  heartbeat(lease: Lease): Promise<void>;
  /** Persists the absolute time the coming generation's recovery budget runs out. */
  setRecoveryDeadline(lease: Lease, deadlineAt: number): Promise<void>;
  /**
   * The durable point "intent recorded": the assistant message and one PREPARED op per
   * intent, in one transaction. An empty or duplicate call id rejects the whole batch with
   * `LedgerIntentError` and records nothing.
   */
  recordModelTurn(lease: Lease, record: ModelTurnRecord, riders?: LeaseRiders): Promise<OpRecord[]>;
  /** "Call marked running", "call settled" and reconciliation: one legal move of one op; an illegal one throws `IllegalOpMoveError`. */
  moveOp(lease: Lease, key: OpKey, move: OpMove): Promise<OpRecord>;
  /**
   * "Step checkpointed" and "guard checkpointed": appends transcript rows and writes
   * one checkpoint, after making `settle`'s legal moves in the same transaction; resolves to the
   * ops those moves settled. An illegal move throws `IllegalOpMoveError` and nothing of the write
   * is kept.
   */
  checkpoint(lease: Lease, write: CheckpointWrite, riders?: LeaseRiders): Promise<readonly OpRecord[]>;
  /** Stops executing and keeps everything; the turn becomes resumable. */
  suspend(lease: Lease, reason: string, riders?: LeaseRiders): Promise<void>;
  /** Ends the turn; its transcript and checkpoints are dropped, identity and ledger stay. */
  finish(lease: Lease, status: OwnerTerminalStatus, reason?: string, riders?: LeaseRiders): Promise<void>;
  /**
   * Ends the turn TERMINAL_COMPLETED like `finish`, and in the same transaction stores its final
   * reply as pending, with the model that wrote it when known, so that a reply the transport never
   * confirmed can be posted after a restart as it would have been.
   */
  complete(lease: Lease, reply: string, writtenBy?: ReplyAuthor, riders?: LeaseRiders): Promise<void>;
  /**
   * Parks the turn until an operator gives each of `calls` a verdict (DESIGN §9.1): they become
   * MANUAL_RESOLUTION_REQUIRED, the turn AWAITING_RESOLUTION with its lease released.
   */
  awaitResolution(lease: Lease, calls: readonly OpKey[], reason: string): Promise<void>;
  /**
   * Parks the turn until a person answers each of `calls` (DESIGN §9.2): they become
   * AWAITING_APPROVAL until `timeoutMs` from now, the turn AWAITING_APPROVAL with its lease
   * released; resolves to the calls as parked.
   */
  awaitApproval(lease: Lease, calls: readonly OpKey[], timeoutMs: number): Promise<OpRecord[]>;
}

/** Admission and the inbox: the intake's side (DESIGN §8, §8.1). */
export interface AdmissionStore {
  /** Admits a message as a new turn holding a fresh lease, or says why it must not run fresh. */
  admit(request: AdmissionRequest): Promise<Admission>;
  /** Keeps a message accepted into its channel's queue until its admission takes it (DESIGN §8.1); resolves to its inbox id. */
  acceptInbound(record: InboundRecord): Promise<number>;
  /** The messages of a transport accepted and never admitted, oldest first. */
  listInbox(source: string): Promise<InboxEntry[]>;
  /** Takes a message out of the inbox without admitting it: it was answered with a notice instead. */
  dropInbound(id: number): Promise<void>;
}

/** Saved turns: what a resume reads and claims, and the resolutions its requester is told of (DESIGN §9, §9.1). */
export interface ResumeStore {
  getTurn(turnId: string): Promise<TurnRecord | undefined>;
  /** Suspended turns of a channel, newest first, for `resume` and `/status`. */
  listSuspended(channel: { readonly source: string; readonly channelId: string }): Promise<TurnRecord[]>;
  /** The newest turn a requester started in a channel, whatever its status: tells an expired `resume` apart from a new message. */
  latestTurnOf(channel: { readonly source: string; readonly channelId: string }, requesterId: string): Promise<TurnRecord | undefined>;
  loadResumable(turnId: string): Promise<ResumableTurn | undefined>;
  /** Takes a suspended turn's lease for a resume; of several callers exactly one wins, and its run's `trace` is kept with the turn's (DESIGN §10.3). */
  claimResume(turnId: string, expectedGeneration: number, trace?: string): Promise<ResumeClaim>;
  /** Ends a suspended turn that cannot be resumed (edited or deleted message, invalid payload). */
  rejectSuspended(turnId: string, expectedGeneration: number, reason: string): Promise<boolean>;
  /** The turns of a transport that the last verdict made resumable and whose requester was not told yet, oldest first. */
  listResolvedUntold(source: string): Promise<TurnRecord[]>;
  /** Records that a turn's requester was told of its resolution; `true` only for the caller that did. */
  markResolutionTold(turnId: string): Promise<boolean>;
  listOps(turnId: string): Promise<OpRecord[]>;
}

/** The outbox of final replies: what the transports confirm and what waits after a restart. */
export interface ReplyStore {
  /** Records a step of a pending reply's delivery; a reply that is no longer pending is left as it is. */
  recordReplyDelivery(turnId: string, progress: ReplyProgress): Promise<void>;
  /** Replies whose delivery was never confirmed, oldest first. */
  listPendingReplies(): Promise<PendingReply[]>;
}

/** Housekeeping (DESIGN §8, §10): the sweeps, the readiness probe, and closing. */
export interface HousekeepingStore {
  /** At start-up: every ACTIVE turn without a live owner is suspended, its RUNNING ops become OUTCOME_UNKNOWN, PREPARED ops stay runnable. */
  sweepOnStartup(): Promise<StartupSweepResult>;
  /** The same for turns whose lease expired while the program ran. */
  sweepExpiredLeases(): Promise<StartupSweepResult>;
  /** The three retention clocks of DESIGN §10. */
  sweepRetention(): Promise<RetentionSweepResult>;
  /**
   * Proves that the store takes a durable write now, with one small write of its own (SQLite: its
   * probe row; PostgreSQL: this process's heartbeat in the registry), for the readiness check.
   * @throws {TurnStateUnavailable} when it does not.
   */
  probe(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The turn store (DESIGN §6, §7, §10), every role's port: written once over both databases and
 * held to one contract suite. `durable` is false for the store chosen when none could open (or
 * `turn_state.enabled` is false): it keeps a turn's ledger in memory for the turn's own
 * bookkeeping and nothing else (see `noTurnStore`).
 */
export interface TurnStore extends LeaseHolderStore, AdmissionStore, ResumeStore, ReplyStore, HousekeepingStore, ApprovalStore {
  readonly durable: boolean;
}

/** How many checkpoints a turn keeps; older ones are dropped as new ones are written. */
export const CHECKPOINTS_KEPT = 5;
