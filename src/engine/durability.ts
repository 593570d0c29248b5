import type { Clock } from '../core/clock.js';
import { repeatUntilAborted } from '../core/repeat.js';
import type { Message } from '../llm/protocol.js';
import { idempotencyKey } from '../turn_state/call_fingerprint.js';
import type { OpIntent, OpKey, OpMove, OpRecord, OpSettlement } from '../turn_state/ledger_types.js';
import type { ReplyAuthor } from '../turn_state/reply_types.js';
import type { TurnStore } from '../turn_state/turn_store.js';
import type { Lease, OwnerTerminalStatus } from '../turn_state/turn_types.js';

/**
 * The engine's one path to durable state. With a store every call is a fenced write; with
 * durability off (the store could not open at start-up) the same calls keep nothing, so the loop
 * runs the same code either way (DESIGN §7.3).
 */
export interface TurnDurability {
  readonly durable: boolean;
  setRecoveryDeadline(deadlineAt: number): Promise<void>;
  recordModelTurn(step: number, assistant: Message, intents: readonly OpIntent[]): Promise<OpRecord[]>;
  moveOp(key: OpKey, move: OpMove): Promise<OpRecord>;
  /** WI-4 and WI-5; `settle` are moves made in the same transaction (a read-only step, DESIGN §7.3). */
  checkpoint(append: readonly Message[], state: unknown, progressed: boolean, settle?: readonly OpSettlement[]): Promise<void>;
  suspend(reason: string): Promise<void>;
  /** Parks the turn until an operator gives each of `calls` a verdict (DESIGN §9.1). */
  awaitResolution(calls: readonly OpKey[], reason: string): Promise<void>;
  finish(status: OwnerTerminalStatus, reason?: string): Promise<void>;
  /** Ends the turn TERMINAL_COMPLETED with its final reply, and the model that wrote it, stored for delivery. */
  complete(reply: string, writtenBy?: ReplyAuthor): Promise<void>;
  /** Beats the lease every `intervalMs` until `signal` aborts; a lost lease or dead store ends the loop. */
  keepAlive(clock: Clock, intervalMs: number, signal: AbortSignal): Promise<void>;
}

/** Durability through the turn store, fenced by `lease`. */
export function storeDurability(store: TurnStore, lease: Lease): TurnDurability {
  return {
    durable: true,
    setRecoveryDeadline: (deadlineAt) => store.setRecoveryDeadline(lease, deadlineAt),
    recordModelTurn: (step, assistant, intents) => store.recordModelTurn(lease, { step, assistant, intents }),
    moveOp: (key, move) => store.moveOp(lease, key, move),
    checkpoint: async (append, state, progressed, settle) => {
      await store.checkpoint(lease, { append, state, progressed, ...(settle === undefined ? {} : { settle }) });
    },
    suspend: (reason) => store.suspend(lease, reason),
    awaitResolution: (calls, reason) => store.awaitResolution(lease, calls, reason),
    finish: (status, reason) => store.finish(lease, status, reason),
    complete: (reply, writtenBy) => store.complete(lease, reply, writtenBy),
    keepAlive: (clock, intervalMs, signal) => repeatUntilAborted(clock, intervalMs, signal, () => store.heartbeat(lease)).catch(() => undefined),
  };
}

/** No durability: ops live in memory for the turn's own bookkeeping, nothing is written. */
export function noDurability(turnId: string): TurnDurability {
  const ops = new Map<string, OpRecord>();
  const keyOf = (key: OpKey): string => `${key.step}/${key.toolCallId}`;
  return {
    durable: false,
    setRecoveryDeadline: () => Promise.resolve(),
    recordModelTurn(step, _assistant, intents) {
      const records = intents.map((intent): OpRecord => {
        const key = { turnId, step, toolCallId: intent.toolCallId };
        return { ...key, toolName: intent.toolName, effect: intent.effect, state: 'PREPARED', idempotencyKey: idempotencyKey(key), fingerprint: '', input: intent.input, inputRedacted: false, result: null, error: null, verdict: null, createdAt: 0, updatedAt: 0 };
      });
      for (const record of records) ops.set(keyOf(record), record);
      return Promise.resolve(records);
    },
    moveOp(key, move) {
      const previous = ops.get(keyOf(key));
      if (previous === undefined) return Promise.reject(new Error(`no op ${keyOf(key)}`));
      const next = movedOp(previous, move);
      ops.set(keyOf(key), next);
      return Promise.resolve(next);
    },
    checkpoint: () => Promise.resolve(),
    suspend: () => Promise.reject(new Error('durability is off: a suspended turn could not be kept')),
    awaitResolution: () => Promise.reject(new Error('durability is off: no operator could record a verdict')),
    finish: () => Promise.resolve(),
    complete: () => Promise.resolve(),
    keepAlive: () => Promise.resolve(),
  };
}

/** `op` as a legal `move` leaves it, with what became known. */
export function movedOp(op: OpRecord, move: OpMove): OpRecord {
  return { ...op, state: move.to, ...('result' in move ? { result: move.result } : {}), ...('error' in move ? { error: move.error } : {}) };
}
