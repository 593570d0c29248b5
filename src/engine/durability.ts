import type { Clock } from '../core/clock.js';
import { repeatUntilAborted } from '../core/repeat.js';
import type { Message } from '../llm/protocol.js';
import type { OpIntent, OpKey, OpMove, OpRecord, OpSettlement } from '../turn_state/ledger_types.js';
import type { ReplyAuthor } from '../turn_state/reply_types.js';
import type { LeaseHolderStore } from '../turn_state/turn_store.js';
import type { Lease, OwnerTerminalStatus } from '../turn_state/turn_types.js';

/**
 * The engine's one path to durable state: every call a fenced write of the turn store. With
 * durability off (no store could open at start-up) the store is one that keeps nothing, so the
 * loop runs the same code either way (DESIGN §7.3); `durable` says which.
 */
export interface TurnDurability {
  readonly durable: boolean;
  setRecoveryDeadline(deadlineAt: number): Promise<void>;
  recordModelTurn(step: number, assistant: Message, intents: readonly OpIntent[]): Promise<OpRecord[]>;
  moveOp(key: OpKey, move: OpMove): Promise<OpRecord>;
  /** "Step checkpointed" and "guard checkpointed"; `settle` are moves made in the same transaction (a read-only step, DESIGN §7.3). */
  checkpoint(append: readonly Message[], state: unknown, progressed: boolean, settle?: readonly OpSettlement[]): Promise<void>;
  suspend(reason: string): Promise<void>;
  /** Parks the turn until an operator gives each of `calls` a verdict (DESIGN §9.1). */
  awaitResolution(calls: readonly OpKey[], reason: string): Promise<void>;
  /** Parks the turn until a person answers each of `calls` (DESIGN §9.2); resolves to the calls as parked. */
  awaitApproval(calls: readonly OpKey[], timeoutMs: number): Promise<OpRecord[]>;
  finish(status: OwnerTerminalStatus, reason?: string): Promise<void>;
  /** Ends the turn TERMINAL_COMPLETED with its final reply, and the model that wrote it, stored for delivery. */
  complete(reply: string, writtenBy?: ReplyAuthor): Promise<void>;
  /** Beats the lease every `intervalMs` until `signal` aborts; a lost lease or dead store ends the loop. */
  keepAlive(clock: Clock, intervalMs: number, signal: AbortSignal): Promise<void>;
}

/** Durability through the turn store's lease holder's writes, fenced by `lease`. */
export function storeDurability(store: LeaseHolderStore & { readonly durable: boolean }, lease: Lease): TurnDurability {
  return {
    durable: store.durable,
    setRecoveryDeadline: (deadlineAt) => store.setRecoveryDeadline(lease, deadlineAt),
    recordModelTurn: (step, assistant, intents) => store.recordModelTurn(lease, { step, assistant, intents }),
    moveOp: (key, move) => store.moveOp(lease, key, move),
    checkpoint: async (append, state, progressed, settle) => {
      await store.checkpoint(lease, { append, state, progressed, ...(settle === undefined ? {} : { settle }) });
    },
    suspend: (reason) => store.suspend(lease, reason),
    awaitResolution: (calls, reason) => store.awaitResolution(lease, calls, reason),
    awaitApproval: (calls, timeoutMs) => store.awaitApproval(lease, calls, timeoutMs),
    finish: (status, reason) => store.finish(lease, status, reason),
    complete: (reply, writtenBy) => store.complete(lease, reply, writtenBy),
    keepAlive: (clock, intervalMs, signal) => repeatUntilAborted(clock, intervalMs, signal, () => store.heartbeat(lease)).catch(() => undefined),
  };
}
