/**
 * What the bot says when a limit stops it (DESIGN §10.1): a message refused because its user,
 * channel or server reached a windowed limit, and a turn stopped by a per-turn limit with the work
 * it keeps. `/usage`'s answers are in usage_texts.ts.
 */
import { assertNever } from '../../core/assert_never.js';
import type { DoneCall, TurnLimitHit } from '../../engine/turn_meter.js';
import type { LimitKind, ScopeLimit } from '../../turn_state/usage_store.js';
import { quotedOutcome, spanText, wallClockText } from './texts.js';

/** The most calls a stopped turn's notice lists one by one. */
const LISTED_CALLS = 10;

/** A count as people read it: `12,500`. */
export function countText(count: number): string {
  return Math.round(count).toLocaleString('en-US');
}

/** An amount of money in the operator's currency, which the bot does not know: `0.42`, `0.0031`. */
export function costText(cost: number): string {
  return cost >= 1 ? cost.toFixed(2) : cost.toFixed(4);
}

/** A limit's size as people read it: `20 requests per hour`, `100,000 tokens per day`. */
export function limitSizeText(kind: LimitKind, max: number): string {
  switch (kind) {
    case 'turns_per_hour':
      return `${countText(max)} ${max === 1 ? 'request' : 'requests'} per hour`;
    case 'tokens_per_day':
      return `${countText(max)} tokens per 24 hours`;
    default:
      return assertNever(kind);
  }
}

/**
 * A message refused by `limit` (DESIGN §10.1): whose limit, how large, and when the count falls
 * below it again — `resetsAt` by the store's clock, `now` by the bot's.
 */
export function limitRefusedText(limit: ScopeLimit, resetsAt: number, now: number): string {
  const size = limitSizeText(limit.kind, limit.max);
  const whose = ((): string => {
    switch (limit.scope) {
      case 'user':
        return `You have reached your limit of ${size}`;
      case 'channel':
        return `This channel has reached its limit of ${size}`;
      case 'server':
        return `This server has reached its limit of ${size}`;
      default:
        return assertNever(limit.scope);
    }
  })();
  return `${whose}, so I did not start on this message. You can ask again at ${wallClockText(resetsAt)} (in ${spanText(Math.max(1000, resetsAt - now))}).`;
}

/**
 * A turn stopped by a per-turn limit before its next model call (DESIGN §10.1): which limit, what
 * was spent, and what each call it made came to — the work it keeps, which the channel's history
 * keeps in the same words so that the next request can go on from it.
 */
export function turnLimitText(hit: TurnLimitHit, done: readonly DoneCall[]): string {
  const limit =
    hit.kind === 'max_tokens'
      ? `its limit of ${countText(hit.max)} tokens per request (${countText(hit.spent)} spent)`
      : `its limit of ${costText(hit.max)} in cost per request (${costText(hit.spent)} spent)`;
  const head = `I stopped this request before asking the model again: it reached ${limit}.`;
  if (done.length === 0) return `${head} Nothing was done yet; ask again in smaller steps.`;
  const listed = done
    .slice(0, LISTED_CALLS)
    .map(({ toolName, outcome }) => `\`${toolName}\` ${outcome.kind === 'result' ? 'returned' : 'failed'}: ${quotedOutcome(outcome.kind === 'result' ? outcome.text : outcome.error)}`);
  const more = done.length > LISTED_CALLS ? [`…and ${done.length - LISTED_CALLS} more calls.`] : [];
  return [`${head} What it did is kept; ask again to go on from here.`, ...listed, ...more].join('\n');
}
