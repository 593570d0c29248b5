import type { Message } from '../llm/protocol.js';
import type { UsageQuery, UsageRow } from './usage_store.js';
import type { ApprovalAnswer, ApprovalOutcome } from './approval_store.js';
import type { OpKey, OpRecord, OpState } from './ledger_types.js';
import type { ReplyState } from './reply_types.js';
import type { TurnRecord, TurnStatus } from './turn_types.js';

/** Which turns an operator lists; every field narrows the list, none means every turn. */
export interface TurnFilter {
  readonly statuses?: readonly TurnStatus[];
  readonly source?: string;
  readonly channelId?: string;
  /** Only turns whose final reply was stored and never confirmed delivered. */
  readonly replyPending?: boolean;
  /** Only turns that are not running yet hold a call still marked RUNNING (see {@link StoreCensus.strandedCalls}). */
  readonly strandedCalls?: boolean;
  readonly requesterId?: string;
  /** Only turns created at or after this time (epoch ms). */
  readonly createdSince?: number;
  /** At most this many turns, the newest. */
  readonly limit?: number;
}

/** A turn as an operator's list shows it. */
export interface TurnOverview {
  readonly turn: TurnRecord;
  /** Its calls marked MANUAL_RESOLUTION_REQUIRED: each waits for an operator's verdict (DESIGN §9.1). */
  readonly callsAwaitingVerdict: number;
  /** Its calls marked AWAITING_APPROVAL: each waits for a person's approval or denial (DESIGN §9.2). */
  readonly callsAwaitingApproval: number;
  /** Where its final reply stands; `null` when it has none. */
  readonly reply: ReplyState | null;
}

/** A final reply's delivery, as the outbox keeps it. */
export interface ReplyDelivery {
  readonly state: ReplyState;
  readonly partsDelivered: number;
  readonly createdAt: number;
  readonly deliveredAt: number | null;
  /** Why the transport refused it for good, when it was abandoned. */
  readonly failure: string | null;
}

/** Everything an operator sees of one turn: its row, its ledger with every move of its calls, and its reply's delivery. */
export interface TurnDetail {
  readonly turn: TurnRecord;
  readonly ops: readonly OpRecord[];
  /** Every move of every call of the turn, in order (kept as long as the ledger is). */
  readonly moves: readonly OpMoveRecord[];
  readonly reply: ReplyDelivery | null;
}

/** One of a turn's checkpoints: when it was written and how much of the transcript it covers. */
export interface CheckpointMark {
  readonly seq: number;
  readonly transcriptLength: number;
  readonly createdAt: number;
}

/** One model call a turn made, as usage recorded it (DESIGN §10.1): the model (a fallback under its own name), its tokens (`null`: not reported) and cost (`null`: not priced). */
export interface ModelCallRecord {
  readonly calledAt: number;
  readonly model: string;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly cost: number | null;
}

/** One move of one call (DESIGN §6): the state it entered, when, and who moved it (`null`: the bot itself). */
export interface OpMoveRecord extends OpKey {
  readonly state: OpState;
  readonly at: number;
  readonly by: string | null;
}

/**
 * What a turn did, beyond its row and ledger: its transcript and checkpoints (both empty once its
 * payload was dropped: when it ended, or past payload retention) and every model call it made,
 * over all its runs, in order.
 */
export interface TurnWork {
  readonly transcript: readonly Message[];
  readonly checkpoints: readonly CheckpointMark[];
  readonly modelCalls: readonly ModelCallRecord[];
}

/** A bot process registered in a store shared by several (PostgreSQL's `instances`): where it runs, its shards, and when it was last seen alive. */
export interface ProcessRecord {
  readonly instanceId: string;
  readonly host: string;
  readonly pid: number;
  /** The shards it serves, as `discord.shards` gave them; `null` for all of them. */
  readonly shards: string | null;
  readonly startedAt: number;
  readonly heartbeatAt: number;
  /** When it stopped cleanly; `null` while it runs, or if it died. */
  readonly stoppedAt: number | null;
}

/**
 * An operator's statement about one uncertain call (DESIGN §9.1): it took effect (with the result
 * text the model will see) or it did not (with a note). Recorded with who gave it.
 */
export interface VerdictRequest {
  readonly call: OpKey;
  readonly verdict: 'applied' | 'not_applied';
  readonly text: string | null;
  /** Who gave the verdict: `cli:<os user>` or `discord:<user id>`. */
  readonly by: string;
}

/** Why a verdict was refused: a verdict is final, and only a call that awaits one may get it. */
export const VERDICT_REFUSALS = ['turn_not_found', 'call_not_found', 'not_awaiting_verdict'] as const;
export type VerdictRefusal = (typeof VERDICT_REFUSALS)[number];

/** What became of a verdict. `remaining` counts the turn's calls still awaiting one: at zero the turn is SUSPENDED (resumable). */
export type VerdictOutcome =
  | { readonly kind: 'recorded'; readonly op: OpRecord; readonly turn: TurnRecord; readonly remaining: number }
  | { readonly kind: 'refused'; readonly reason: VerdictRefusal; readonly op: OpRecord | undefined };

/** The counts an operator watches: for `holdfast doctor` and the metrics' gauges. */
export interface StoreCensus {
  readonly active: number;
  readonly suspended: number;
  readonly awaitingResolution: number;
  readonly callsAwaitingVerdict: number;
  readonly awaitingApproval: number;
  readonly callsAwaitingApproval: number;
  readonly repliesPending: number;
  /** Calls still marked RUNNING in a turn that is not running (DESIGN §9.3): their effect may have happened, and nothing will settle them. */
  readonly strandedCalls: number;
  /** Turns ACTIVE past their lease's end: no process kept them alive, and none has taken them over yet (the next sweep, or start, suspends them). */
  readonly expiredLeases: number;
}

/**
 * What operators do with the store (DESIGN §9.1), from `holdfast turns`, `holdfast doctor`,
 * `holdfast backup` and the admins' slash commands, while the bot runs: list and inspect turns,
 * record verdicts (fenced like every write) and answers to requests for approval, count, check
 * and copy the store.
 */
export interface OperatorStore {
  /** Turns matching `filter`, newest first. */
  listTurns(filter: TurnFilter): Promise<TurnOverview[]>;
  /** Turns whose id starts with `prefix`, at most `limit` of them: a unique prefix names one turn. */
  turnsWithPrefix(prefix: string, limit: number): Promise<TurnRecord[]>;
  turnDetail(turnId: string): Promise<TurnDetail | undefined>;
  /** What the turn did: its transcript, checkpoints and model calls; `undefined` when there is no such turn. */
  turnWork(turnId: string): Promise<TurnWork | undefined>;
  /**
   * Records a verdict for one call awaiting it, in one transaction conditional on the turn still
   * AWAITING_RESOLUTION at the revision read; the last verdict of a turn makes it SUSPENDED, its
   * resume window restarted and its requester to be told once.
   */
  resolveCall(request: VerdictRequest): Promise<VerdictOutcome>;
  /**
   * Records an answer to a call that waits for approval (DESIGN §9.2), as the bot records one; the
   * last answer of a turn makes it SUSPENDED, still to be continued by the bot that serves its channel.
   */
  answerApproval(answer: ApprovalAnswer): Promise<ApprovalOutcome>;
  census(): Promise<StoreCensus>;
  /** The bot processes registered in the store, most recently seen first; none in a store one process holds (SQLite). */
  processes(): Promise<ProcessRecord[]>;
  /** The daily usage totals a query asks for (DESIGN §10.1). */
  usage(query: UsageQuery): Promise<UsageRow[]>;
  /** The store's own consistency check: the problems found, none when healthy. */
  checkIntegrity(): Promise<string[]>;
  /** A consistent copy of the whole store at `path`, taken while the bot may be writing. */
  backup(path: string): Promise<BackupCopy>;
}

/** Where a backup put the copy of the store's blobs, beside the copy of its file. */
export interface BackupCopy {
  readonly blobs: string;
}
