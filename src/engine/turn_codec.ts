/**
 * The checkpoint codec of a turn (DESIGN §7.4, §7.5): the encoder of its checkpoint payload
 * (its fields come from the census in turn_census.ts), and the exhaustive validation that a
 * resume runs on the payload and the transcript before any lease is taken.
 */
import type { Message } from '../llm/protocol.js';
import { validateToolPairs, type ToolPairViolation } from '../llm/tool_pairs.js';
import type { ChatTurn, RepeatedCallTracker, TurnBudgets } from './chat_turn.js';
import { describeValue, exactObject, isPlainObject, pathOf, readArray, readBoolean, readInteger, readString } from './checkpoint_validation.js';
import { checkTranscriptShape } from './transcript_shape.js';
import { marked } from '../core/marked.js';
import { CODEC_VERSION, LATER_PAYLOAD_FIELDS, PAYLOAD_FIELDS, type CheckpointState, type PayloadFieldName, type PersistedFields, type ReconstructedFieldName } from './turn_census.js';

/** The largest cap a budget may hold: anything above is corrupt. */
export const MAX_BUDGET_CAP = 10_000;
/** The longest system prompt a payload may hold. */
export const MAX_SYSTEM_PROMPT_CHARS = 100_000;
/** The longest model name a payload may hold. */
const MAX_MODEL_NAME_CHARS = 1_000;

/** The smallest value of each cap: a turn may forbid tools and continuations, never model calls. */
const CAP_MINIMUMS: { readonly [K in keyof TurnBudgets]-?: number } = { maxIterations: 1, maxToolCalls: 0, maxContinuations: 0 };

/** Each counter and the cap it may not exceed. */
const COUNTER_CAPS = { iteration: 'maxIterations', toolCallsUsed: 'maxToolCalls', continuationsUsed: 'maxContinuations' } as const satisfies Partial<Record<PayloadFieldName, keyof TurnBudgets>>;

/** A copy of each payload field as plain JSON. Typed over the census: a new payload field needs an encoder. */
const FIELD_ENCODERS: { readonly [K in PayloadFieldName]: (turn: PersistedFields) => PersistedFields[K] } = {
  systemPrompt: (turn) => turn.systemPrompt,
  iteration: (turn) => turn.iteration,
  toolCallsUsed: (turn) => turn.toolCallsUsed,
  budgets: ({ budgets }) => ({ maxIterations: budgets.maxIterations, maxToolCalls: budgets.maxToolCalls, maxContinuations: budgets.maxContinuations }),
  emptyTurnRetried: (turn) => turn.emptyTurnRetried,
  continuationsUsed: (turn) => turn.continuationsUsed,
  finalAnswerRequested: (turn) => turn.finalAnswerRequested,
  repeatedCalls: ({ repeatedCalls }) => ({ counts: { ...repeatedCalls.counts }, warned: [...repeatedCalls.warned] }),
  recoveryDeadlineAt: (turn) => turn.recoveryDeadlineAt,
  model: (turn) => turn.model,
};

type FieldDecoder<T> = (value: unknown, path: string, problems: string[]) => T | undefined;

const readCounter: FieldDecoder<number> = (value, path, problems) => readInteger(value, path, problems, 0, Number.MAX_SAFE_INTEGER);

/**
 * The exact check of each payload field, returning a fresh copy. A decoder returns `undefined`
 * only after reporting at least one problem. Typed over the census: a new payload field needs one.
 */
const FIELD_DECODERS: { readonly [K in PayloadFieldName]: FieldDecoder<PersistedFields[K]> } = {
  systemPrompt: (value, path, problems) => readString(value, path, problems, MAX_SYSTEM_PROMPT_CHARS),
  iteration: readCounter,
  toolCallsUsed: readCounter,
  budgets: decodeBudgets,
  emptyTurnRetried: readBoolean,
  continuationsUsed: readCounter,
  finalAnswerRequested: readBoolean,
  repeatedCalls: decodeRepeatedCalls,
  recoveryDeadlineAt: (value, path, problems) => {
    if (value === null) return null;
    if (typeof value === 'number') return readCounter(value, path, problems);
    problems.push(`${path}: must be null or a safe integer, got ${describeValue(value)}`);
    return undefined;
  },
  model: (value, path, problems) => (value === null ? null : readString(value, path, problems, MAX_MODEL_NAME_CHARS)),
};

/** The checkpoint payload of `turn`: its persisted fields except the transcript, as plain JSON. */
export function encodeCheckpointState(turn: PersistedFields): CheckpointState {
  const entries = PAYLOAD_FIELDS.map((name) => [name, FIELD_ENCODERS[name](turn)] as const);
  // Every name has an encoder (the table's type) and the list is the census' (a test pins it).
  return { codecVersion: CODEC_VERSION, fields: Object.fromEntries(entries) as PersistedFields };
}

/** What {@link decodeCheckpointState} found. */
export type DecodeResult = { readonly ok: true; readonly fields: PersistedFields } | { readonly ok: false; readonly problems: string[] };

type DecodedFields = { -readonly [K in PayloadFieldName]?: PersistedFields[K] };

/**
 * Checks a stored checkpoint payload exactly and completely, and never throws: codec version,
 * the exact field set at every level, exact types, bounds, counters within their caps. Returns
 * fresh copies of the fields, or every problem found, each prefixed with its field path.
 */
export function decodeCheckpointState(payload: unknown): DecodeResult {
  const problems: string[] = [];
  const root = exactObject(payload, 'checkpoint', problems, ['codecVersion', 'fields']);
  if (root !== undefined && Object.hasOwn(root, 'codecVersion') && root['codecVersion'] !== CODEC_VERSION) {
    problems.push(`checkpoint.codecVersion: must be ${CODEC_VERSION}, got ${describeValue(root['codecVersion'])}`);
  }
  const later = Object.keys(LATER_PAYLOAD_FIELDS);
  const required = PAYLOAD_FIELDS.filter((name) => !later.includes(name));
  const fields = root !== undefined && Object.hasOwn(root, 'fields') ? exactObject(root['fields'], 'checkpoint.fields', problems, required, later) : undefined;
  const decoded: DecodedFields = { ...LATER_PAYLOAD_FIELDS };
  for (const name of PAYLOAD_FIELDS) if (fields !== undefined && Object.hasOwn(fields, name)) decodeField(name, fields[name], problems, decoded);
  for (const [counter, cap] of Object.entries(COUNTER_CAPS) as [keyof typeof COUNTER_CAPS, keyof TurnBudgets][]) {
    const used = decoded[counter];
    const limit = decoded.budgets?.[cap];
    if (used !== undefined && limit !== undefined && used > limit) {
      problems.push(`checkpoint.fields.${counter}: must not exceed checkpoint.fields.budgets.${cap} (${limit}), got ${used}`);
    }
  }
  // No problem means every field was present and decoded (a decoder that fails reports why).
  return problems.length > 0 ? { ok: false, problems } : { ok: true, fields: decoded as PersistedFields };
}

function decodeField<K extends PayloadFieldName>(name: K, value: unknown, problems: string[], into: DecodedFields): void {
  const decoder: FieldDecoder<PersistedFields[K]> = FIELD_DECODERS[name];
  const decoded = decoder(value, `checkpoint.fields.${name}`, problems);
  if (decoded !== undefined) into[name] = decoded;
}

function decodeBudgets(value: unknown, path: string, problems: string[]): TurnBudgets | undefined {
  const object = exactObject(value, path, problems, Object.keys(CAP_MINIMUMS));
  if (object === undefined) return undefined;
  const cap = (key: keyof TurnBudgets): number | undefined => (Object.hasOwn(object, key) ? readInteger(object[key], pathOf(path, key), problems, CAP_MINIMUMS[key], MAX_BUDGET_CAP) : undefined);
  const [maxIterations, maxToolCalls, maxContinuations] = [cap('maxIterations'), cap('maxToolCalls'), cap('maxContinuations')];
  if (maxIterations === undefined || maxToolCalls === undefined || maxContinuations === undefined) return undefined;
  return { maxIterations, maxToolCalls, maxContinuations };
}

function decodeRepeatedCalls(value: unknown, path: string, problems: string[]): RepeatedCallTracker | undefined {
  const object = exactObject(value, path, problems, ['counts', 'warned']);
  if (object === undefined) return undefined;
  const counts = Object.hasOwn(object, 'counts') ? decodeCounts(object['counts'], pathOf(path, 'counts'), problems) : undefined;
  const warned = Object.hasOwn(object, 'warned') ? decodeWarned(object['warned'], pathOf(path, 'warned'), problems, counts) : undefined;
  return counts === undefined || warned === undefined ? undefined : { counts, warned };
}

/** Fingerprint → how often it was proposed: a non-empty key, a positive count. */
function decodeCounts(value: unknown, path: string, problems: string[]): Record<string, number> | undefined {
  if (!isPlainObject(value)) {
    problems.push(`${path}: must be an object, got ${describeValue(value)}`);
    return undefined;
  }
  const before = problems.length;
  const entries: [string, number][] = [];
  for (const [fingerprint, count] of Object.entries(value)) {
    if (fingerprint === '') problems.push(`${path}: a fingerprint must not be empty`);
    const decoded = readInteger(count, pathOf(path, fingerprint), problems, 1, Number.MAX_SAFE_INTEGER);
    if (decoded !== undefined) entries.push([fingerprint, decoded]);
  }
  // fromEntries defines own properties, so a "__proto__" fingerprint stays data, not a prototype.
  return problems.length === before ? Object.fromEntries(entries) : undefined;
}

/** The fingerprints already warned about: distinct, each one counted. */
function decodeWarned(value: unknown, path: string, problems: string[], counts: Readonly<Record<string, number>> | undefined): string[] | undefined {
  const entries = readArray(value, path, problems);
  if (entries === undefined) return undefined;
  const before = problems.length;
  const warned: string[] = [];
  for (let index = 0; index < entries.length; index++) {
    const fingerprint = readString(entries[index], pathOf(path, index), problems);
    if (fingerprint === undefined) continue;
    if (warned.includes(fingerprint)) problems.push(`${pathOf(path, index)}: ${describeValue(fingerprint)} is listed twice`);
    if (counts !== undefined && !Object.hasOwn(counts, fingerprint)) problems.push(`${pathOf(path, index)}: ${describeValue(fingerprint)} has no entry in counts`);
    warned.push(fingerprint);
  }
  return problems.length === before ? warned : undefined;
}

/**
 * Every problem of a stored transcript: its shape (see `checkTranscriptShape`) and its tool
 * pairs. One exception to tool-pair validity: the calls of the *last* assistant message may be
 * unanswered. A turn can stop between "intent recorded" (the model turn and its calls) and "step checkpointed" (the
 * results appended), and resume answers those calls from the ledger (DESIGN §9). Any earlier
 * assistant message was followed by a newer model turn, which the loop starts only after every
 * result of the batch before it is logged, so an unanswered call there means a corrupt log.
 */
export function validateTranscript(messages: unknown): string[] {
  const problems: string[] = [];
  checkTranscript(messages, problems);
  return problems;
}

function checkTranscript(messages: unknown, problems: string[]): messages is Message[] {
  if (!checkTranscriptShape(messages, 'transcript', problems)) return false;
  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
  const before = problems.length;
  for (const violation of validateToolPairs(messages)) {
    if (violation.kind === 'unanswered' && violation.messageIndex === lastAssistant) continue;
    problems.push(describeViolation(violation));
  }
  return problems.length === before;
}

/** What each tool-pair violation means, after the call id it concerns. */
const PAIR_PROBLEMS: { readonly [K in ToolPairViolation['kind']]: string } = {
  unanswered: 'has no result before the next assistant message',
  orphan_result: 'is answered here but was not called in the model turn before',
  duplicate_result: 'is answered twice',
  duplicate_use_id: 'is used twice in one model turn',
  empty_use_id: 'is empty',
  result_in_assistant_message: 'is answered inside an assistant message',
};

function describeViolation(violation: ToolPairViolation): string {
  const id = violation.kind === 'empty_use_id' ? 'a tool call id' : `tool call ${JSON.stringify(violation.toolUseId)}`;
  return `transcript[${violation.messageIndex}]: ${id} ${PAIR_PROBLEMS[violation.kind]}`;
}

const INVALID_CHECKPOINT_ERROR = marked<InvalidCheckpointError>('InvalidCheckpointError');

/** A stored checkpoint or transcript that cannot be restored: the turn ends TERMINAL_REJECTED, never SUSPENDED again. */
export class InvalidCheckpointError extends Error {
  override readonly name = 'InvalidCheckpointError';

  constructor(readonly problems: readonly string[]) {
    const shown = problems.slice(0, 10).join('; ');
    super(`invalid checkpoint: ${shown}${problems.length > 10 ? `; and ${problems.length - 10} more` : ''}`);
    INVALID_CHECKPOINT_ERROR.mark(this);
  }
}

/** Whether `error` is an {@link InvalidCheckpointError}, by its marker (it survives module duplication). */
export function isInvalidCheckpointError(error: unknown): error is InvalidCheckpointError {
  return INVALID_CHECKPOINT_ERROR.is(error);
}

/** The fields a resume rebuilds, from the store's row, the transport and the current catalog. */
export type ReconstructedParts = Pick<ChatTurn, ReconstructedFieldName>;

/**
 * The turn a checkpoint and its transcript describe, with freshly reconstructed parts. Both are
 * validated completely first; nothing is built from a payload with any problem.
 * @throws {InvalidCheckpointError} listing every problem of the payload and of the transcript.
 */
export function restoreChatTurn(payload: unknown, transcript: unknown, reconstructed: ReconstructedParts): ChatTurn {
  const decoded = decodeCheckpointState(payload);
  const problems = decoded.ok ? [] : [...decoded.problems];
  if (!checkTranscript(transcript, problems) || !decoded.ok) throw new InvalidCheckpointError(problems);
  const { turnId, identity, requester, tools, signal, logger, trace } = reconstructed;
  return { turnId, identity, requester, tools, signal, logger, ...(trace === undefined ? {} : { trace }), ...decoded.fields, transcript: [...transcript] };
}
