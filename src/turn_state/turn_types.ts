import type { Message } from '../llm/protocol.js';
import type { LeaseRiders } from './lease_riders.js';
import type { UsageAdmissionRequest, UsageRefusal } from './usage_store.js';

/**
 * A turn's lifecycle (DESIGN §8); AWAITING_RESOLUTION is a turn parked until an operator gives each
 * uncertain call a verdict (§9.1), AWAITING_APPROVAL one parked until a person approves or denies
 * each call that asked (§9.2).
 */
export const TURN_STATUSES = [
  'ACTIVE',
  'SUSPENDED',
  'AWAITING_RESOLUTION',
  'AWAITING_APPROVAL',
  'TERMINAL_COMPLETED',
  'TERMINAL_FAILED',
  'TERMINAL_CANCELLED',
  'TERMINAL_REJECTED',
  'TERMINAL_EXPIRED',
] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];

/** Why a turn whose calls waited for approval is SUSPENDED: every call was answered, and it is to be continued (DESIGN §9.2). */
export const APPROVALS_ANSWERED = 'approvals answered';

/** The statuses a turn ends in; a lease-holder may end its turn in any but EXPIRED, which only the retention sweep sets. */
export type TerminalStatus = Extract<TurnStatus, `TERMINAL_${string}`>;
export type OwnerTerminalStatus = Exclude<TerminalStatus, 'TERMINAL_EXPIRED'>;

/** What makes a turn unique: the message it answers. */
export interface TurnIdentity {
  /** The transport: `discord`, `console`. */
  readonly source: string;
  readonly channelId: string;
  readonly messageId: string;
}

/** A turn as the store holds it. Times are wall-clock epoch milliseconds from the Clock port. */
export interface TurnRecord {
  readonly turnId: string;
  readonly identity: TurnIdentity;
  readonly requesterId: string;
  /** A digest of the original message's content, to notice an edit before a resume. */
  readonly messageDigest: string;
  readonly status: TurnStatus;
  /** Bumped each time a new owner takes the turn (admission is 1, each resume adds one). */
  readonly generation: number;
  /** Bumped by every fenced write of the turn's state. */
  readonly revision: number;
  readonly leaseToken: string | null;
  readonly leaseExpiresAt: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** The last time the turn recorded real progress; heartbeats and waits are not progress. */
  readonly lastProgressAt: number;
  /** The absolute time the current generation's recovery budget runs out. */
  readonly recoveryDeadlineAt: number | null;
  readonly suspensionReason: string | null;
  readonly failureReason: string | null;
  /** Every uncertain call got an operator's verdict and the requester has not been told yet (DESIGN §9.1). */
  readonly resolutionUntold: boolean;
  /** The transcript and checkpoints were dropped (terminal, or past payload retention): identity and ledger remain. */
  readonly payloadCompacted: boolean;
  /** The W3C `traceparent` of each run of the turn that was traced, oldest first (DESIGN §10.3): a resume's trace links to them. */
  readonly traces: readonly string[];
}

/**
 * The right to write one turn, fenced by generation, revision and token (DESIGN §7.2). The store
 * keeps `revision` and `expiresAt` current as it writes; the owner passes the same object to
 * every call and never changes it.
 */
export interface Lease {
  readonly turnId: string;
  readonly generation: number;
  readonly token: string;
  revision: number;
  expiresAt: number;
}

/** What admission decided for a message (DESIGN §8): an identity that exists never runs fresh. */
export type Admission =
  | { readonly disposition: 'admitted'; readonly turn: TurnRecord; readonly lease: Lease }
  | { readonly disposition: 'already_processed'; readonly turn: TurnRecord }
  | { readonly disposition: 'in_progress'; readonly turn: TurnRecord }
  | { readonly disposition: 'resumable'; readonly turn: TurnRecord }
  | { readonly disposition: 'awaiting_resolution'; readonly turn: TurnRecord }
  | { readonly disposition: 'awaiting_approval'; readonly turn: TurnRecord }
  | { readonly disposition: 'limited'; readonly refusal: UsageRefusal }
  | { readonly disposition: 'store_unavailable'; readonly error: unknown };

/**
 * What a new turn starts from, stored in its admission's transaction (DESIGN §7.3): the
 * transcript (the frozen history and the user's message) and the loop state of its first
 * checkpoint.
 */
export interface InitialCheckpoint {
  readonly transcript: readonly Message[];
  readonly state: unknown;
}

export interface AdmissionRequest {
  readonly identity: TurnIdentity;
  readonly requesterId: string;
  readonly messageDigest: string;
  readonly start: InitialCheckpoint;
  /** The inbox entry the message waited in: taken out in the same transaction, whatever admission decides. */
  readonly inboxId?: number;
  /** The `traceparent` of the turn's first run, when it is traced (DESIGN §10.3). */
  readonly trace?: string;
  /** What a new turn's admission writes with it: the message joining its channel's history, the first model call's recovery deadline. */
  readonly riders?: LeaseRiders;
  /** The message's turn counted against its owner's limits in the same transaction; one a limit refuses is not admitted (DESIGN §10.1). */
  readonly usage?: UsageAdmissionRequest;
}

/**
 * The outcome of asking for a suspended turn's resume lease: exactly one caller wins. A winner's
 * `toldResolution` says that it is the one caller to tell the requester of the operators' verdicts (DESIGN §9.1).
 */
export type ResumeClaim =
  | { readonly won: true; readonly turn: TurnRecord; readonly lease: Lease; readonly toldResolution: boolean }
  | { readonly won: false; readonly reason: 'not_found' | 'not_suspended' | 'generation_changed' };

/** One checkpoint: the loop state and the transcript length it covers (DESIGN §7.4). */
export interface CheckpointRecord {
  readonly seq: number;
  readonly transcriptLength: number;
  readonly state: unknown;
  readonly createdAt: number;
}
