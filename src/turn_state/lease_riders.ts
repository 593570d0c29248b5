import type { HistoryEntry } from './history_store.js';
import type { TurnIdentity } from './turn_types.js';
import type { ModelCallUsage } from './usage_store.js';

/** The model calls a turn made since its last write, counted against the owner of its message (DESIGN §10.1). */
export interface UsageRecord {
  readonly identity: TurnIdentity;
  readonly requesterId: string;
  readonly calls: readonly ModelCallUsage[];
}

/** An entry a channel's history gains with a turn's write: the user's message at admission, the reply at completion. */
export interface HistoryJoin {
  readonly channel: string;
  readonly entry: HistoryEntry;
}

/**
 * Writes that go in the transaction of a turn's own write instead of a commit of their own
 * (DESIGN §7.3): none of them protects anything the write it rides with does not already settle.
 *
 * - `usage`: what the model calls that led to the write cost. It is durable exactly when the
 *   answer it paid for is: a call lost to a crash is asked again, and counted then.
 * - `deadlineAt`: the recovery deadline of the model call that follows the write, stored before
 *   that call starts as if on its own (§5.1, §7.3).
 * - `history`: the entry the channel's history gains with the write, so that the history and the
 *   turn never disagree about a message or a reply.
 *
 * ```ts
 * await store.complete(lease, 'Done.', undefined, { history: { channel: 'discord:42', entry: { role: 'assistant', text: 'Done.' } } });
 * ```
 */
export interface LeaseRiders {
  readonly usage?: UsageRecord;
  readonly deadlineAt?: number;
  readonly history?: HistoryJoin;
}
