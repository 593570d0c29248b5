import type { TurnStore } from '../turn_state/turn_store.js';
import type { TurnRecord } from '../turn_state/turn_types.js';
import type { TurnDurability } from './durability.js';
import type { ReplyAuthor } from '../turn_state/reply_types.js';
import type { AwaitedCall, FailureReason, TurnOutcome } from './turn_outcome.js';
import type { DoneCall, TurnLimitHit } from './turn_meter.js';
import { assertNever } from '../core/assert_never.js';
import { isStaleTurnError } from '../turn_state/errors.js';

/** Why a suspended turn was suspended: only a capacity suspension waits for the provider to recover. */
export type SuspensionCause = 'capacity' | 'unreachable' | 'shutdown';

/**
 * How a turn ended: the status the store recorded and why, for the conversation to put into
 * words. `untouched` when the turn was fenced: it belongs to another owner now. `unrecorded`
 * when the store failed to record the ending: the turn is still ACTIVE there, and the next
 * start's sweep will say what became of it.
 */
export type TurnEnding =
  /** `writtenBy`: who wrote the reply, when the turn had fallback models (DESIGN §5.4). */
  | { readonly status: 'TERMINAL_COMPLETED'; readonly reply: string; readonly writtenBy?: ReplyAuthor }
  /** `suspension_not_stored`: the turn was to be suspended, but the store could not keep it. */
  | { readonly status: 'TERMINAL_FAILED'; readonly reason: FailureReason | 'suspension_not_stored' }
  /** A per-turn limit stopped the turn before its next model call; `done` is the work it keeps (DESIGN §10.1). */
  | { readonly status: 'TERMINAL_FAILED'; readonly reason: 'turn_limit'; readonly limit: TurnLimitHit; readonly done: readonly DoneCall[] }
  | { readonly status: 'TERMINAL_CANCELLED' }
  | { readonly status: 'SUSPENDED'; readonly suspendedFor: SuspensionCause }
  /** Parked until an operator gives each of `awaiting` a verdict (DESIGN §9.1). */
  | { readonly status: 'AWAITING_RESOLUTION'; readonly awaiting: readonly AwaitedCall[] }
  /** Parked until a person answers each of `asking` (DESIGN §9.2). */
  | { readonly status: 'AWAITING_APPROVAL'; readonly asking: readonly AwaitedCall[] }
  /** `uncertain`: calls nobody can verify where no verdict could be kept; `unresumable`: a saved turn that cannot go on. */
  | { readonly status: 'TERMINAL_REJECTED'; readonly reason: { readonly kind: 'uncertain'; readonly calls: readonly AwaitedCall[] } | { readonly kind: 'unresumable' } }
  | { readonly status: 'untouched' }
  | { readonly status: 'unrecorded' };

/**
 * The one place a turn ends (DESIGN §8): it performs the status change, the lease release and
 * picks the notice for every outcome; a turn parked for approval asks for `approvalTimeoutMs`. If a suspension cannot be stored, the user gets a plain
 * error and no promise to resume.
 */
export async function endTurn(outcome: TurnOutcome, durability: TurnDurability, approvalTimeoutMs: number): Promise<TurnEnding> {
  switch (outcome.kind) {
    case 'completed':
      // The reply is stored with the ending, so that one the transport never confirmed is posted after a restart.
      return recorded(() => durability.complete(outcome.reply, outcome.writtenBy), {
        status: 'TERMINAL_COMPLETED',
        reply: outcome.reply,
        ...(outcome.writtenBy === undefined ? {} : { writtenBy: outcome.writtenBy }),
      });
    case 'failed':
      return recorded(() => durability.finish('TERMINAL_FAILED', outcome.reason), { status: 'TERMINAL_FAILED', reason: outcome.reason });
    case 'cancelled':
      return recorded(() => durability.finish('TERMINAL_CANCELLED', 'cancelled'), { status: 'TERMINAL_CANCELLED' });
    case 'suspended': {
      const suspended = await recorded(() => durability.suspend(outcome.detail), { status: 'SUSPENDED', suspendedFor: outcome.cause });
      if (suspended.status !== 'unrecorded') return suspended;
      return recorded(() => durability.finish('TERMINAL_FAILED', 'suspension_not_stored'), { status: 'TERMINAL_FAILED', reason: 'suspension_not_stored' });
    }
    case 'needs_manual_resolution': {
      const parked = await recorded(
        () =>
          durability.awaitResolution(
            outcome.calls.map((call) => call.op),
            'an uncertain call awaits an operator’s verdict',
          ),
        { status: 'AWAITING_RESOLUTION', awaiting: outcome.calls },
      );
      if (parked.status !== 'unrecorded' || durability.durable) return parked;
      // Without a store no verdict can be recorded: the turn ends, and the user is told what to check.
      return recorded(() => durability.finish('TERMINAL_REJECTED', 'manual_resolution_required'), { status: 'TERMINAL_REJECTED', reason: { kind: 'uncertain', calls: outcome.calls } });
    }
    case 'awaiting_approval':
      return parkForApproval(outcome.calls, durability, approvalTimeoutMs);
    case 'limited':
      return recorded(() => durability.finish('TERMINAL_FAILED', 'turn_limit'), { status: 'TERMINAL_FAILED', reason: 'turn_limit', limit: outcome.limit, done: outcome.done });
    case 'fenced':
      return { status: 'untouched' };
    default:
      return assertNever(outcome);
  }
}

/**
 * Parks a turn whose calls ask for approval (DESIGN §9.2). A parking the store could not keep
 * fails the turn: nobody could answer a request that is not kept, and nothing of it ran.
 */
async function parkForApproval(calls: readonly AwaitedCall[], durability: TurnDurability, timeoutMs: number): Promise<TurnEnding> {
  try {
    await durability.awaitApproval(
      calls.map((call) => call.op),
      timeoutMs,
    );
    return { status: 'AWAITING_APPROVAL', asking: calls };
  } catch (error) {
    if (isStaleTurnError(error)) return { status: 'untouched' };
    return recorded(() => durability.finish('TERMINAL_FAILED', 'store_unavailable'), { status: 'TERMINAL_FAILED', reason: 'store_unavailable' });
  }
}

/**
 * `ending` once `write` recorded it (DESIGN §8: only the ending the store recorded is told). A
 * lost lease means another owner has the turn: nothing is told. A dead store is said plainly.
 */
async function recorded(write: () => Promise<void>, ending: TurnEnding): Promise<TurnEnding> {
  try {
    await write();
    return ending;
  } catch (error) {
    if (isStaleTurnError(error)) return { status: 'untouched' };
    return { status: 'unrecorded' };
  }
}

/**
 * Ends a suspended turn that cannot be continued — its stored state is not one this engine wrote,
 * or its message was edited or deleted — before any lease is taken. It never goes back to
 * SUSPENDED, so nothing can loop on it.
 */
export async function rejectUnresumable(store: TurnStore, turn: TurnRecord, reason: string): Promise<TurnEnding> {
  const rejected = await store.rejectSuspended(turn.turnId, turn.generation, reason);
  return rejected ? { status: 'TERMINAL_REJECTED', reason: { kind: 'unresumable' } } : { status: 'untouched' };
}
