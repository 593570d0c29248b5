import type { Message } from 'discord.js';
import type { NoticeKind } from '../conversation/transport.js';

/** How many turns' notices are remembered: the oldest are forgotten first (a turn that expires unseen is never forgotten otherwise). */
const REMEMBERED = 1_000;

/**
 * The channel messages that showed each turn's latest notice of each kind, so that an update of
 * that notice (the next try of a suspended turn) edits it in place instead of posting again.
 */
export class NoticeMessages {
  readonly #byTurn = new Map<string, Map<NoticeKind, Message>>();

  /** Remembers that `message` shows the latest `notice` of `turn`. */
  shown(turn: string, notice: NoticeKind, message: Message): void {
    const kinds = this.#byTurn.get(turn) ?? new Map<NoticeKind, Message>();
    this.#byTurn.delete(turn);
    this.#byTurn.set(turn, kinds.set(notice, message));
    for (const oldest of this.#byTurn.keys()) {
      if (this.#byTurn.size <= REMEMBERED) break;
      this.#byTurn.delete(oldest);
    }
  }

  /** The message showing the latest `notice` of `turn`, if one is remembered. */
  find(turn: string, notice: NoticeKind): Message | undefined {
    return this.#byTurn.get(turn)?.get(notice);
  }

  /** Forgets a turn whose notices will not be updated any more. */
  forget(turn: string): void {
    this.#byTurn.delete(turn);
  }
}
