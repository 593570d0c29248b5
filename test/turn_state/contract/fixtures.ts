import { expect } from 'vitest';
import type { JsonObject, Message } from '../../../src/llm/protocol.js';
import { isIllegalOpMoveError, isLedgerIntentError, isStaleTurnError, type LedgerIntentError } from '../../../src/turn_state/errors.js';
import { LEGAL_PRIOR_STATES, OP_STATES, type EffectClass, type OpKey, type OpMove, type OpRecord, type OpState } from '../../../src/turn_state/ledger_types.js';
import type { ModelTurnRecord, ResumableTurn, TurnStore } from '../../../src/turn_state/turn_store.js';
import type { AdmissionRequest, Lease, TurnIdentity, TurnRecord } from '../../../src/turn_state/turn_types.js';

// ---- identities and admission -------------------------------------------------------------

export function identity(messageId = 'msg-1', channelId = 'chan-1', source = 'discord'): TurnIdentity {
  return { source, channelId, messageId };
}

export function admissionRequest(id: TurnIdentity, requesterId = 'user-1'): AdmissionRequest {
  return { identity: id, requesterId, messageDigest: `digest:${id.source}/${id.channelId}/${id.messageId}`, start: { transcript: [], state: { fresh: true } } };
}

/** Admits a message that must be new, returning its turn and lease. */
export async function admitNew(store: TurnStore, id: TurnIdentity = identity()): Promise<{ turn: TurnRecord; lease: Lease }> {
  const admission = await store.admit(admissionRequest(id));
  if (admission.disposition !== 'admitted') throw new Error(`expected ${id.messageId} to be admitted, got ${admission.disposition}`);
  return { turn: admission.turn, lease: admission.lease };
}

export async function turnOf(store: TurnStore, turnId: string): Promise<TurnRecord> {
  const turn = await store.getTurn(turnId);
  if (turn === undefined) throw new Error(`turn ${turnId} is missing`);
  return turn;
}

export async function resumableOf(store: TurnStore, turnId: string): Promise<ResumableTurn> {
  const resumable = await store.loadResumable(turnId);
  if (resumable === undefined) throw new Error(`turn ${turnId} has nothing to load`);
  return resumable;
}

/** Suspends a turn and takes it back with a resume claim, returning the new owner's lease. */
export async function suspendAndClaim(store: TurnStore, lease: Lease): Promise<Lease> {
  await store.suspend(lease, 'provider overloaded');
  const claim = await store.claimResume(lease.turnId, lease.generation);
  if (!claim.won) throw new Error(`expected to win the resume of ${lease.turnId}, got ${claim.reason}`);
  return claim.lease;
}

// ---- messages and intents -----------------------------------------------------------------

export function userMessage(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}

export function toolResultMessage(toolUseId: string, content: string, isError = false): Message {
  return { role: 'tool', content: [{ type: 'tool_result', toolUseId, content, isError }] };
}

export interface CallSpec {
  readonly id: string;
  readonly name?: string;
  readonly input?: JsonObject;
  readonly effect?: EffectClass;
}

/** What the model answered at `step`: some text and one tool call per spec, with matching intents. */
export function modelTurn(step: number, calls: readonly CallSpec[], text = `thinking at step ${step}`): ModelTurnRecord {
  const intents = calls.map((call) => ({
    toolCallId: call.id,
    toolName: call.name ?? 'lookup',
    input: call.input ?? { query: `weather in city ${call.id}` },
    effect: call.effect ?? 'read',
  }));
  const assistant: Message = {
    role: 'assistant',
    content: [{ type: 'text', text }, ...intents.map((intent) => ({ type: 'tool_use' as const, id: intent.toolCallId, name: intent.toolName, input: intent.input }))],
  };
  return { step, assistant, intents };
}

export function opKey(turnId: string, step: number, toolCallId: string): OpKey {
  return { turnId, step, toolCallId };
}

export function findOp(ops: readonly OpRecord[], step: number, toolCallId: string): OpRecord {
  const op = ops.find((o) => o.step === step && o.toolCallId === toolCallId);
  if (op === undefined) throw new Error(`op (${step}, ${toolCallId}) is missing`);
  return op;
}

/** Ops sorted by key, for comparing op lists whatever order a store lists them in. */
export function byKey(ops: readonly OpRecord[]): OpRecord[] {
  return [...ops].sort((a, b) => a.step - b.step || a.toolCallId.localeCompare(b.toolCallId));
}

// ---- op moves -------------------------------------------------------------------------------

/** The move to `state`, carrying a result or error named after it. */
export function moveTo(state: OpState, note = state.toLowerCase()): OpMove {
  switch (state) {
    case 'RUNNING':
      return { to: state };
    case 'APPLIED':
    case 'RECONCILED_APPLIED':
      return { to: state, result: `result: ${note}` };
    case 'DEFINITELY_FAILED':
    case 'OUTCOME_UNKNOWN':
    case 'RECONCILED_FAILED':
    case 'MANUAL_RESOLUTION_REQUIRED':
      return { to: state, error: `error: ${note}` };
    case 'PREPARED':
      // The type forbids it; an untyped caller can still ask, and the store must refuse.
      return { to: 'PREPARED' } as unknown as OpMove;
    case 'RESOLVED_APPLIED':
    case 'RESOLVED_NOT_APPLIED':
    case 'AWAITING_APPROVAL':
    case 'APPROVED':
    case 'DENIED':
      // Only an operator's verdict or a person's approval reaches these; an owner asking must be refused.
      return { to: state, result: `verdict: ${note}` } as unknown as OpMove;
  }
}

/** The states a person, not the owner, moves a call to: an operator's verdicts and the answers to a request for approval. */
const PERSONS_STATES: readonly OpState[] = ['RESOLVED_APPLIED', 'RESOLVED_NOT_APPLIED', 'AWAITING_APPROVAL', 'APPROVED', 'DENIED'];

/** The states an owner's legal moves reach from PREPARED: every state but a person's. */
export const OWNER_REACHABLE_STATES: readonly OpState[] = OP_STATES.filter((state) => !PERSONS_STATES.includes(state));

/** The shortest chain of legal moves that brings a PREPARED op to `target`. */
export function pathTo(target: OpState): OpState[] {
  const paths = new Map<OpState, OpState[]>([['PREPARED', []]]);
  const queue: OpState[] = ['PREPARED'];
  for (let from = queue.shift(); from !== undefined; from = queue.shift()) {
    for (const to of OP_STATES) {
      if (!paths.has(to) && LEGAL_PRIOR_STATES[to].includes(from)) {
        paths.set(to, [...(paths.get(from) ?? []), to]);
        queue.push(to);
      }
    }
  }
  const path = paths.get(target);
  if (path === undefined) throw new Error(`${target} cannot be reached from PREPARED`);
  return path;
}

/** Moves a PREPARED op to `target` by legal moves, returning the op as the store last reported it. */
export async function driveOp(store: TurnStore, lease: Lease, key: OpKey, target: OpState): Promise<OpRecord | undefined> {
  let last: OpRecord | undefined;
  for (const state of pathTo(target)) last = await store.moveOp(lease, key, moveTo(state));
  return last;
}

// ---- errors and snapshots -----------------------------------------------------------------

/** The rejection of `promise`; fails the test when it fulfils. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  const outcome = await promise.then(
    (value: unknown) => ({ fulfilled: true as const, value }),
    (error: unknown) => ({ fulfilled: false as const, error }),
  );
  if (outcome.fulfilled) throw new Error(`expected a rejection, but it fulfilled with ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

export async function expectStale(promise: Promise<unknown>): Promise<void> {
  const error = await rejectionOf(promise);
  expect(isStaleTurnError(error), `expected StaleTurnError, got ${String(error)}`).toBe(true);
}

export async function expectIllegalMove(promise: Promise<unknown>): Promise<void> {
  const error = await rejectionOf(promise);
  expect(isIllegalOpMoveError(error), `expected IllegalOpMoveError, got ${String(error)}`).toBe(true);
}

export async function expectIntentError(promise: Promise<unknown>, reason: LedgerIntentError['reason']): Promise<void> {
  const error = await rejectionOf(promise);
  expect(isLedgerIntentError(error), `expected LedgerIntentError, got ${String(error)}`).toBe(true);
  if (isLedgerIntentError(error)) expect(error.reason).toBe(reason);
}

/** Everything the interface shows of one turn, to check that a refused write changed nothing. */
export async function snapshot(store: TurnStore, turnId: string): Promise<{ turn: TurnRecord | undefined; ops: OpRecord[]; resumable: ResumableTurn | undefined }> {
  return { turn: await store.getTurn(turnId), ops: await store.listOps(turnId), resumable: await store.loadResumable(turnId) };
}
