import { shortTurnId } from '../../engine/call_label.js';
import type { ReplyState } from '../../turn_state/reply_types.js';
import type { TurnRecord } from '../../turn_state/turn_types.js';
import type { ChannelScope } from '../transport.js';
import { TEXTS } from '../notices/texts.js';

/**
 * The longest answer an operator's command gives: one chat message. Discord's hold 2,000
 * characters, and the notice mark goes before the text.
 */
export const OPERATOR_ANSWER_LIMIT = 1_900;

/** A call of a parked turn that waits for a verdict, as an operator names it. */
export interface AwaitingCall {
  readonly toolName: string;
  readonly label: string;
}

/** One turn that needs attention: the turn, where its reply stands, and the calls awaiting a verdict. */
export interface AttentionItem {
  readonly turn: TurnRecord;
  readonly reply: ReplyState | null;
  readonly calls: readonly AwaitingCall[];
}

/** How long ago `at` was, roughly, as people say it. */
function ago(now: number, at: number): string {
  const minutes = Math.floor(Math.max(0, now - at) / 60_000);
  if (minutes < 1) return 'less than a minute ago';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.floor(hours / 24)} d ago`;
}

/** One turn's lines: what it is and where, then for each call awaiting a verdict the exact `/resolve` to give one. */
function itemLines(item: AttentionItem, scope: ChannelScope, now: number): string {
  const { turn } = item;
  const id = shortTurnId(turn.turnId);
  const reply = item.reply === 'pending' ? ', its reply not yet delivered' : '';
  const head = `\`${id}\` ${turn.status} in ${scope.mentionChannel(turn.identity.channelId)} for ${scope.mentionUser(turn.requesterId)}, asked ${ago(now, turn.createdAt)}${reply}`;
  const calls = item.calls.map((call) => `  • \`${call.toolName}\` (call ${call.label}): \`/resolve turn:${id} call:${call.label} verdict:applied\` or \`verdict:not_applied\``);
  return [head, ...calls].join('\n');
}

/**
 * The `/turns` answer: one entry per turn, newest first, cut to {@link OPERATOR_ANSWER_LIMIT}
 * with "…and N more" when they do not all fit.
 */
export function attentionAnswer(items: readonly AttentionItem[], scope: ChannelScope, now: number): string {
  if (items.length === 0) return TEXTS.nothingNeedsAttention;
  const entries = items.map((item) => itemLines(item, scope, now));
  const shown: string[] = [];
  let length = 0;
  for (const [index, entry] of entries.entries()) {
    const left = entries.length - index - 1;
    const footer = left === 0 ? 0 : `\n…and ${left} more.`.length;
    if (length + entry.length + 1 + footer > OPERATOR_ANSWER_LIMIT) break;
    shown.push(entry);
    length += entry.length + 1;
  }
  const more = entries.length - shown.length;
  return more === 0 ? shown.join('\n') : [...shown, `…and ${more} more.`].join('\n');
}
