import type { Clock } from '../core/clock.js';
import { repeatUntilAborted } from '../core/repeat.js';
import type { Message } from '../llm/protocol.js';
import type { LeaseRiders, UsageRecord } from '../turn_state/lease_riders.js';
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
  /**
   * The recovery deadline of the model call about to start, durable when this resolves: the one
   * the write just before stored for it (DESIGN §7.3), unless that is later than `now + budgetMs`;
   * else `now + budgetMs`, stored by a write of its own.
   */
  recoveryDeadline(now: number, budgetMs: number): Promise<number>;
  /** Keeps what model calls cost for the turn's next write that carries riders, in its transaction (DESIGN §7.3). */
  carryUsage(usage: UsageRecord): void;
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

/** What a turn's writes carry besides their own rows (DESIGN §7.3); without it each is written alone. */
export interface RidingWrites {
  /** The channel history (its key) the turn's reply joins in the transaction that completes the turn. */
  readonly replyJoins?: string;
  /** Every checkpoint stores the deadline of a model call that would start now, on `clock`, with `budgetMs`. */
  readonly deadline?: { readonly clock: Clock; readonly budgetMs: number };
  /** The deadline the write that made the lease (an admission) stored for the first model call. */
  readonly armedAt?: number;
}

/**
 * Durability through the turn store's lease holder's writes, fenced by `lease`. The usage kept by
 * {@link TurnDurability.carryUsage} rides with the next write that takes riders, and stays kept
 * when that write fails; a checkpoint arms the next model call's deadline (`riding.deadline`).
 */
export function storeDurability(store: LeaseHolderStore & { readonly durable: boolean }, lease: Lease, riding: RidingWrites = {}): TurnDurability {
  let usage: UsageRecord | undefined;
  let armed = riding.armedAt;
  /** Runs `write` with the riders it takes; the deadline it armed, if any, is the next call's only when nothing was written after it. */
  const carrying = async <T>(write: (riders: LeaseRiders | undefined) => Promise<T>, extra: LeaseRiders = {}): Promise<T> => {
    const carried = usage;
    const riders = carried === undefined ? extra : { ...extra, usage: carried };
    usage = undefined;
    armed = undefined;
    try {
      const result = await write(Object.keys(riders).length === 0 ? undefined : riders);
      armed = extra.deadlineAt;
      return result;
    } catch (error) {
      usage ??= carried;
      throw error;
    }
  };
  const written = async <T>(write: () => Promise<T>): Promise<T> => {
    armed = undefined;
    return write();
  };
  return {
    durable: store.durable,
    recoveryDeadline: async (now, budgetMs) => {
      const wanted = now + budgetMs;
      const stored = armed;
      armed = undefined;
      if (stored !== undefined && stored <= wanted) return stored;
      await store.setRecoveryDeadline(lease, wanted);
      return wanted;
    },
    carryUsage: (carried) => {
      usage = usage === undefined ? carried : { ...carried, calls: [...usage.calls, ...carried.calls] };
    },
    recordModelTurn: (step, assistant, intents) => carrying((riders) => store.recordModelTurn(lease, { step, assistant, intents }, riders)),
    moveOp: (key, move) => written(() => store.moveOp(lease, key, move)),
    checkpoint: async (append, state, progressed, settle) => {
      const { deadline } = riding;
      const extra = deadline === undefined ? {} : { deadlineAt: deadline.clock.now() + deadline.budgetMs };
      await carrying((riders) => store.checkpoint(lease, { append, state, progressed, ...(settle === undefined ? {} : { settle }) }, riders), extra);
    },
    suspend: (reason) => carrying((riders) => store.suspend(lease, reason, riders)),
    awaitResolution: (calls, reason) => written(() => store.awaitResolution(lease, calls, reason)),
    awaitApproval: (calls, timeoutMs) => written(() => store.awaitApproval(lease, calls, timeoutMs)),
    finish: (status, reason) => carrying((riders) => store.finish(lease, status, reason, riders)),
    complete: (reply, writtenBy) => {
      const { replyJoins } = riding;
      return carrying((riders) => store.complete(lease, reply, writtenBy, riders), replyJoins === undefined ? {} : { history: { channel: replyJoins, entry: { role: 'assistant', text: reply } } });
    },
    keepAlive: (clock, intervalMs, signal) => repeatUntilAborted(clock, intervalMs, signal, () => store.heartbeat(lease)).catch(() => undefined),
  };
}
