import type { TurnStore } from '../turn_state/turn_store.js';
import type { OwnerTerminalStatus, TurnRecord, TurnStatus } from '../turn_state/turn_types.js';
import type { TurnDurability } from './durability.js';
import type { ReplyAuthor } from '../turn_state/reply_types.js';
import type { AwaitedCall, FailureReason, TurnOutcome } from './turn_outcome.js';
import { shortTurnId } from './call_label.js';
import { assertNever } from '../core/assert_never.js';
import { isStaleTurnError } from '../turn_state/errors.js';

/**
 * How a turn ended: the status it was left in and what the user is told. `untouched` when the
 * turn was fenced: it belongs to another owner now. `unrecorded` when the store failed to record
 * the ending: the turn is still ACTIVE there, the user is told so, and the next start's sweep
 * will say what became of it.
 */
export type TurnEnding =
  | {
      readonly status: Exclude<TurnStatus, 'AWAITING_RESOLUTION'> | 'untouched';
      /** The reply, or a short notice; `undefined` when the user must be told nothing. */
      readonly message: string | undefined;
      /** Why a SUSPENDED turn was suspended: only a capacity suspension waits for the provider to recover. */
      readonly suspendedFor?: 'capacity' | 'unreachable' | 'shutdown';
      /** Who wrote a completed turn's reply, when the turn had fallback models (DESIGN §5.4). */
      readonly writtenBy?: ReplyAuthor;
    }
  /** Parked until an operator gives each of `awaiting` a verdict (DESIGN §9.1). */
  | { readonly status: 'AWAITING_RESOLUTION'; readonly message: string; readonly awaiting: readonly AwaitedCall[] }
  | { readonly status: 'unrecorded'; readonly message: string };

const FAILURE_NOTICES: Readonly<Record<FailureReason, string>> = {
  provider_auth: 'The model provider refused the bot’s credentials, so I cannot answer. An operator needs to check the API key.',
  provider_request: 'The model provider rejected the request, so I could not answer this one.',
  provider_quota: 'The model provider’s quota or spending limit is used up, so I cannot answer until an operator raises it.',
  provider_rate_limit: 'The model provider is rate-limiting the bot. Please try again in a little while.',
  empty_model_turn: 'The model gave an empty answer twice, so I stopped rather than send you nothing.',
  iteration_limit: 'This request needed more steps than one turn may take, so I stopped.',
  store_unavailable: 'I lost access to my storage in the middle of this request, so I stopped before doing anything unrecorded. Please try again later.',
  internal_error: 'Something went wrong inside the bot while answering. The operators can find the details in the log.',
};

const SUSPENSION_NOTICES: Readonly<Record<'capacity' | 'unreachable' | 'shutdown', string>> = {
  capacity:
    'The model provider is overloaded right now. Your request and the work done so far are saved: I will continue by myself when the provider recovers, or type `resume` to try again now.',
  unreachable:
    'The model provider cannot be reached right now. Your request and the work done so far are saved: type `resume` to try again once it is back.',
  shutdown: 'The bot is restarting. Your request and the work done so far are saved: type `resume` to continue it.',
};

/**
 * The one place a turn ends (DESIGN §8): it performs the status change, the lease release and
 * picks the notice for every outcome. If a suspension cannot be stored, the user gets a plain
 * error and no promise to resume.
 */
export async function endTurn(outcome: TurnOutcome, durability: TurnDurability): Promise<TurnEnding> {
  switch (outcome.kind) {
    case 'completed':
      // The reply is stored with the ending, so that one the transport never confirmed is posted after a restart.
      return recorded(() => durability.complete(outcome.reply, outcome.writtenBy), { status: 'TERMINAL_COMPLETED', message: outcome.reply, ...(outcome.writtenBy === undefined ? {} : { writtenBy: outcome.writtenBy }) });
    case 'failed':
      return finished(durability, 'TERMINAL_FAILED', outcome.reason, FAILURE_NOTICES[outcome.reason]);
    case 'cancelled':
      return finished(durability, 'TERMINAL_CANCELLED', 'cancelled', 'Stopped.');
    case 'suspended': {
      const suspended = await recorded(() => durability.suspend(outcome.detail), { status: 'SUSPENDED', message: SUSPENSION_NOTICES[outcome.cause], suspendedFor: outcome.cause });
      if (suspended.status !== 'unrecorded') return suspended;
      return finished(durability, 'TERMINAL_FAILED', 'suspension_not_stored', 'The model provider is overloaded and I could not finish this request. Please try again later.');
    }
    case 'needs_manual_resolution': {
      const parked = await recorded(() => durability.awaitResolution(outcome.calls.map((call) => call.op), 'an uncertain call awaits an operator’s verdict'), {
        status: 'AWAITING_RESOLUTION',
        message: awaitingNotice(outcome.calls),
        awaiting: outcome.calls,
      });
      if (parked.status !== 'unrecorded' || durability.durable) return parked;
      // Without a store no verdict can be recorded: the turn ends, and the user is told what to check.
      return finished(durability, 'TERMINAL_REJECTED', 'manual_resolution_required', `I stopped: I cannot tell whether ${callList(outcome.calls)} took effect, and running it again could do it twice. Please check it yourself before asking again.`);
    }
    case 'fenced':
      return { status: 'untouched', message: undefined };
    default:
      return assertNever(outcome);
  }
}

function callList(calls: readonly AwaitedCall[]): string {
  return calls.map((call) => `\`${call.op.toolName}\` (call ${call.label})`).join(', ');
}

/** The parked turn's notice (DESIGN §9.1): which calls, the turn's short id, and what an operator has to check. */
function awaitingNotice(calls: readonly AwaitedCall[]): string {
  const turn = shortTurnId(calls[0]?.op.turnId ?? '');
  return (
    `I stopped before doing anything twice: I cannot tell whether ${callList(calls)} took effect, and running it again could do it twice. ` +
    `Your request is saved as turn ${turn}. An operator has to check at the tool's target whether ${calls.length === 1 ? 'that call' : 'each call'} happened ` +
    `and record it with \`holdfast turns resolve ${turn} <call> --applied\` or \`--not-applied\`; I will tell you here once that is done, and \`resume\` then continues.`
  );
}

/** What the user is told when the store could not record how a turn ended: nothing is promised. */
const UNRECORDED_NOTICE = 'I lost access to my storage, so I could not record how this request ended, and I stopped working on it. Once the bot can reach its storage again it will tell you what became of it.';

/** Ends the turn in `status` and tells `message`, if the store records it. */
function finished(durability: TurnDurability, status: OwnerTerminalStatus, reason: string, message: string): Promise<TurnEnding> {
  return recorded(() => durability.finish(status, reason), { status, message });
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
    if (isStaleTurnError(error)) return { status: 'untouched', message: undefined };
    return { status: 'unrecorded', message: UNRECORDED_NOTICE };
  }
}

/**
 * Ends a suspended turn that cannot be continued — its stored state is not one this engine wrote,
 * or its message was edited or deleted — before any lease is taken. It never goes back to
 * SUSPENDED, so nothing can loop on it.
 */
export async function rejectUnresumable(store: TurnStore, turn: TurnRecord, reason: string): Promise<TurnEnding> {
  const rejected = await store.rejectSuspended(turn.turnId, turn.generation, reason);
  return rejected
    ? { status: 'TERMINAL_REJECTED', message: 'I could not pick this request up again: its saved state is not usable. Please ask again.' }
    : { status: 'untouched', message: undefined };
}
