import type { JsonObject } from '../llm/protocol.js';
import { LedgerIntentError } from './errors.js';

/** Where one tool call's effect stands (DESIGN §6). */
export const OP_STATES = [
  'PREPARED',
  'AWAITING_APPROVAL',
  'APPROVED',
  'DENIED',
  'RUNNING',
  'APPLIED',
  'DEFINITELY_FAILED',
  'OUTCOME_UNKNOWN',
  'RECONCILED_APPLIED',
  'RECONCILED_FAILED',
  'MANUAL_RESOLUTION_REQUIRED',
  'RESOLVED_APPLIED',
  'RESOLVED_NOT_APPLIED',
] as const;
export type OpState = (typeof OP_STATES)[number];

/** What a tool does to the world (DESIGN §6); the ledger decides what may happen to a call after a crash by it. */
export const EFFECT_CLASSES = ['read', 'idempotent', 'write'] as const;
export type EffectClass = (typeof EFFECT_CLASSES)[number];

/**
 * The only legal moves of a turn's owner, as the prior states each target may be reached from.
 * PREPARED may go straight to DEFINITELY_FAILED when a call is refused (over budget, invalid
 * input) and so never begins; nothing ever returns to PREPARED or RUNNING from a settled state;
 * the RESOLVED states are an operator's verdict and AWAITING_APPROVAL, APPROVED and DENIED a
 * person's approval (DESIGN §9.2), never an owner's move: an APPROVED call runs as a PREPARED one.
 */
export const LEGAL_PRIOR_STATES: Readonly<Record<OpState, readonly OpState[]>> = {
  PREPARED: [],
  AWAITING_APPROVAL: [],
  APPROVED: [],
  DENIED: [],
  RUNNING: ['PREPARED', 'APPROVED'],
  APPLIED: ['RUNNING'],
  DEFINITELY_FAILED: ['PREPARED', 'APPROVED', 'RUNNING'],
  OUTCOME_UNKNOWN: ['RUNNING'],
  RECONCILED_APPLIED: ['OUTCOME_UNKNOWN'],
  RECONCILED_FAILED: ['OUTCOME_UNKNOWN'],
  MANUAL_RESOLUTION_REQUIRED: ['OUTCOME_UNKNOWN'],
  RESOLVED_APPLIED: [],
  RESOLVED_NOT_APPLIED: [],
};

/** A verdict is not a move of the turn's owner: only an operator records one, on a call that awaits it (DESIGN §9.1). */
export const VERDICT_PRIOR_STATE: OpState = 'MANUAL_RESOLUTION_REQUIRED';

/**
 * The moves only a `read` may make: it needs no RUNNING mark (DESIGN §7.3), since a read cut short
 * is simply run again, so it settles straight from PREPARED.
 */
export const READ_ONLY_PRIOR_STATES: Readonly<Partial<Record<OpState, readonly OpState[]>>> = {
  APPLIED: ['PREPARED', 'APPROVED'],
  OUTCOME_UNKNOWN: ['PREPARED', 'APPROVED'],
};

/** What a person may say to a call that waits for approval (DESIGN §9.2). */
export const APPROVAL_VERDICTS = ['approved', 'denied'] as const;
export type ApprovalVerdict = (typeof APPROVAL_VERDICTS)[number];

/** Who denied a request nobody answered in time (`tools.approval_timeout_minutes`). */
export const APPROVAL_TIMEOUT = 'timeout';

/**
 * A call's request for approval (DESIGN §9.2): when it was asked and until when, the message
 * that asks it (once the transport posted one), and the answer once given — by whom (a person
 * as `source:user id`, `cli:<user>`, or {@link APPROVAL_TIMEOUT}), when, and their note.
 */
export interface OpApproval {
  readonly requestedAt: number;
  readonly expiresAt: number;
  /** The transport's message that asks for the approval, for editing it once answered. */
  readonly messageId: string | null;
  readonly decision: { readonly verdict: ApprovalVerdict; readonly by: string; readonly at: number; readonly note: string | null } | null;
}

/** Whether an op of `effect` may move from `from` to `to`. */
export function isLegalMove(from: OpState, to: OpState, effect: EffectClass): boolean {
  return LEGAL_PRIOR_STATES[to].includes(from) || (effect === 'read' && (READ_ONLY_PRIOR_STATES[to]?.includes(from) ?? false));
}

/**
 * Rejects a batch with an empty or duplicate call id before anything is recorded or run
 * (DESIGN §6): the whole batch goes back to the model instead.
 * @throws {LedgerIntentError}
 */
export function validateIntents(intents: readonly OpIntent[]): void {
  const seen = new Set<string>();
  for (const intent of intents) {
    if (intent.toolCallId === '') throw new LedgerIntentError('empty_id', '');
    if (seen.has(intent.toolCallId)) throw new LedgerIntentError('duplicate_id', intent.toolCallId);
    seen.add(intent.toolCallId);
  }
}

/** An op's key as messages name it: `turn/step/call`. */
export function describeOpKey(key: OpKey): string {
  return `${key.turnId}/${key.step}/${key.toolCallId}`;
}

/** Ops that keep their rows forever: their outcome is still in question. */
export const NEVER_EXPIRING_OP_STATES: readonly OpState[] = ['OUTCOME_UNKNOWN', 'MANUAL_RESOLUTION_REQUIRED'];

/** A ledger row's key: the step is part of it because some servers reuse call ids across steps. */
export interface OpKey {
  readonly turnId: string;
  readonly step: number;
  readonly toolCallId: string;
}

/** One proposed call, as recorded PREPARED at "intent recorded", before anything runs. */
export interface OpIntent {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: JsonObject;
  readonly effect: EffectClass;
}

/** A move of one op, with what became known. */
export type OpMove =
  | { readonly to: 'RUNNING' }
  | { readonly to: 'APPLIED' | 'RECONCILED_APPLIED'; readonly result: string }
  | { readonly to: 'DEFINITELY_FAILED' | 'OUTCOME_UNKNOWN' | 'RECONCILED_FAILED' | 'MANUAL_RESOLUTION_REQUIRED'; readonly error: string };

/** One op's move, written together with a checkpoint (a read-only step, DESIGN §7.3). */
export interface OpSettlement {
  readonly key: OpKey;
  readonly move: OpMove;
}

/** An operator's verdict on a call awaiting one (DESIGN §9.1): who gave it, when, and the result text or note. */
export interface OpVerdict {
  readonly by: string;
  readonly at: number;
  readonly text: string | null;
}

/** A ledger row. Input, result and error are stored scrubbed of secrets. */
export interface OpRecord extends OpKey {
  readonly toolName: string;
  readonly effect: EffectClass;
  readonly state: OpState;
  /** Stable across crashes and resumes: sent as the idempotency key of `idempotent` tools. */
  readonly idempotencyKey: string;
  /** A digest of the tool name and scrubbed input, kept as secondary evidence for reconciliation. */
  readonly fingerprint: string;
  readonly input: JsonObject;
  /**
   * Whether scrubbing took a secret out of `input`: the stored copy is then not the call the
   * model proposed, and must never be run.
   */
  readonly inputRedacted: boolean;
  readonly result: string | null;
  readonly error: string | null;
  /** Set with RESOLVED_APPLIED or RESOLVED_NOT_APPLIED, never otherwise. */
  readonly verdict: OpVerdict | null;
  /** Set once the call asked for approval (DESIGN §9.2), and kept whatever became of it after. */
  readonly approval: OpApproval | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** `op` as a legal `move` leaves it, with what became known. */
export function movedOp(op: OpRecord, move: OpMove): OpRecord {
  return { ...op, state: move.to, ...('result' in move ? { result: move.result } : {}), ...('error' in move ? { error: move.error } : {}) };
}
