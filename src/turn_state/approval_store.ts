import type { ApprovalVerdict, OpKey, OpRecord } from './ledger_types.js';
import type { TurnRecord } from './turn_types.js';

/** A channel of a transport. */
export interface ChannelRef {
  readonly source: string;
  readonly channelId: string;
}

/**
 * A person's answer to a call that waits for approval (DESIGN §9.2), naming the call by its key
 * or by its stable idempotency key (what a transport's buttons carry). `by` is who answered:
 * `<source>:<user id>` or `cli:<user>`; `note` is what the model reads with a denial.
 * `allowHere` (an admin's "always allow here") keeps a channel rule with the approval.
 */
export type ApprovalAnswer = ({ readonly call: OpKey } | { readonly approvalId: string }) & {
  readonly verdict: ApprovalVerdict;
  readonly by: string;
  readonly note: string | null;
  readonly allowHere?: boolean;
};

/**
 * What an answer came to: recorded, with the call and turn as they are now and how many of the
 * turn's calls still wait (none: the turn is SUSPENDED and is to be continued); or refused — no
 * such call, or it no longer waits (answered, expired, or given up with its turn), with the
 * call and turn as they stand, so that the one who pressed is told what happened.
 */
export type ApprovalOutcome =
  | { readonly kind: 'recorded'; readonly op: OpRecord; readonly turn: TurnRecord; readonly remaining: number }
  | { readonly kind: 'refused'; readonly reason: 'call_not_found'; readonly op: undefined }
  | { readonly kind: 'refused'; readonly reason: 'not_awaiting_approval'; readonly op: OpRecord; readonly turn: TurnRecord };

/** A channel's "always allow here" rule: the tool runs there without asking. */
export interface ApprovalRule {
  readonly toolName: string;
  readonly allowedBy: string;
  readonly allowedAt: number;
}

/**
 * Approvals before a call (DESIGN §9.2), for whoever answers them — the transports' buttons, the
 * console, the admins' commands, `holdfast turns approve|deny` — and for the watch that denies
 * requests nobody answered in time.
 */
export interface ApprovalStore {
  /** Records an answer; the last answer of a turn makes it SUSPENDED, still to be continued. */
  answerApproval(answer: ApprovalAnswer): Promise<ApprovalOutcome>;
  /** Denies by timeout every request past its time; resolves to the calls it denied, as they now stand. */
  expireApprovals(): Promise<OpRecord[]>;
  /** The call a request's stable key names, whatever became of it. */
  findApproval(approvalId: string): Promise<OpRecord | undefined>;
  /** Keeps which message asks for a call's approval. */
  noteApprovalMessage(call: OpKey, messageId: string): Promise<void>;
  /** A channel's "always allow here" rules. */
  approvalRules(channel: ChannelRef): Promise<ApprovalRule[]>;
}
