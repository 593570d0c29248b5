import type { ApprovalVerdict, EffectClass, OpApproval, OpRecord, OpState } from './ledger_types.js';
import type { TurnRecord, TurnStatus } from './turn_types.js';
import { REDACTED } from '../core/sensitive_keys.js';
import type { JsonValue } from '../llm/protocol.js';

/** A `turns` row as the database returns it. */
export interface TurnRow {
  turn_id: string;
  source: string;
  channel_id: string;
  message_id: string;
  requester_id: string;
  message_digest: string;
  status: TurnStatus;
  generation: number;
  revision: number;
  lease_token: string | null;
  lease_expires_at: number | null;
  created_at: number;
  updated_at: number;
  last_progress_at: number;
  recovery_deadline_at: number | null;
  suspension_reason: string | null;
  failure_reason: string | null;
  payload_compacted: number;
  resolution_untold: number;
  traces: string | null;
}

/** An `ops` row as the database returns it. */
export interface OpRow {
  turn_id: string;
  step: number;
  tool_call_id: string;
  tool_name: string;
  effect: EffectClass;
  state: OpState;
  idempotency_key: string;
  fingerprint: string;
  input: string;
  result: string | null;
  result_blob: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
  verdict_by: string | null;
  verdict_at: number | null;
  verdict_text: string | null;
  approval_requested_at: number | null;
  approval_expires_at: number | null;
  approval_message: string | null;
  approval_verdict: ApprovalVerdict | null;
  approval_by: string | null;
  approval_at: number | null;
  approval_note: string | null;
}

export function turnFromRow(row: TurnRow): TurnRecord {
  return {
    turnId: row.turn_id,
    identity: { source: row.source, channelId: row.channel_id, messageId: row.message_id },
    requesterId: row.requester_id,
    messageDigest: row.message_digest,
    status: row.status,
    generation: row.generation,
    revision: row.revision,
    leaseToken: row.lease_token,
    leaseExpiresAt: row.lease_expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastProgressAt: row.last_progress_at,
    recoveryDeadlineAt: row.recovery_deadline_at,
    suspensionReason: row.suspension_reason,
    failureReason: row.failure_reason,
    resolutionUntold: row.resolution_untold === 1,
    payloadCompacted: row.payload_compacted === 1,
    traces: row.traces === null ? [] : row.traces.split(' '),
  };
}

/** An op from its row; a result kept in a blob is read back through `readBlob`. */
export function opFromRow(row: OpRow, readBlob: (digest: string) => string): OpRecord {
  const input = JSON.parse(row.input) as OpRecord['input'];
  return {
    turnId: row.turn_id,
    step: row.step,
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    effect: row.effect,
    state: row.state,
    idempotencyKey: row.idempotency_key,
    fingerprint: row.fingerprint,
    input,
    inputRedacted: holdsRedaction(input),
    result: row.result_blob === null ? row.result : readBlob(row.result_blob),
    error: row.error,
    verdict: row.verdict_by === null || row.verdict_at === null ? null : { by: row.verdict_by, at: row.verdict_at, text: row.verdict_text },
    approval: approvalOf(row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A call's request for approval as its row keeps it (DESIGN §9.2); none for a call that never asked. */
function approvalOf(row: OpRow): OpApproval | null {
  if (row.approval_requested_at === null || row.approval_expires_at === null) return null;
  const { approval_verdict: verdict, approval_by: by, approval_at: at } = row;
  return {
    requestedAt: row.approval_requested_at,
    expiresAt: row.approval_expires_at,
    messageId: row.approval_message,
    decision: verdict === null || by === null || at === null ? null : { verdict, by, at, note: row.approval_note },
  };
}

/**
 * Whether a stored copy had a secret scrubbed out of it: every redaction (DESIGN §7.6) leaves
 * {@link REDACTED} where the secret was, as a whole value or inside a string, and keys are kept
 * as they are. A value the model itself wrote with that marker in it counts as redacted too,
 * which errs on the side of never running a copy that may not be the original.
 */
export function holdsRedaction(value: JsonValue): boolean {
  if (typeof value === 'string') return value.includes(REDACTED);
  if (Array.isArray(value)) return value.some(holdsRedaction);
  if (typeof value === 'object' && value !== null) return Object.values(value).some(holdsRedaction);
  return false;
}
