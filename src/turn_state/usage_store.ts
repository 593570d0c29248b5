import type { TurnIdentity } from './turn_types.js';

/**
 * What the bot spends and how it is bounded (DESIGN §10.1): each turn counted against its
 * requester, channel and server when it is admitted — refused at once when a limit says so — and
 * each model call's tokens and cost counted against the turn. Detailed rows serve the sliding
 * windows of the limits and a turn's own total; every count also goes into one row per day, kept
 * far longer, that the reports read.
 *
 * @example
 * ```ts
 * const owner = { source: 'discord', userId: 'u1', channelId: 'c1', serverId: 'g1' };
 * const verdict = await usage.admit({ identity, owner, limits: [{ scope: 'user', kind: 'turns_per_hour', max: 20 }] });
 * if (verdict.kind === 'refused') tellUser(verdict.limit, verdict.resetsAt);
 * await usage.record(identity, 'u1', [{ model: 'gpt-4o', usage: { inputTokens: 1200, outputTokens: 80 }, cost: 0.0038 }]);
 * const today = await usage.report({ period: { kind: 'today' }, filter: { scope: 'user', id: 'u1' } });
 * ```
 */
export interface UsageStore {
  /**
   * Counts the message's turn against its owner, unless one of `limits` is reached, in one step
   * that takes turns with every other process's admissions (DESIGN §10.1). A message counted or
   * refused before is answered as it was then, and counted once.
   */
  admit(request: UsageAdmissionRequest): Promise<UsageAdmission>;
  /** Adds model calls of the turn of `identity` to its usage, counted against the owner its admission recorded (`requesterId` alone for a turn admitted before usage was counted). */
  record(identity: TurnIdentity, requesterId: string, calls: readonly ModelCallUsage[]): Promise<void>;
  /** What the turn of `identity` has spent so far, over all its runs. */
  turnSpent(identity: TurnIdentity): Promise<TurnSpent>;
  /** The daily totals of `query.period`, for one owner or everyone, as one row or grouped. */
  report(query: UsageQuery): Promise<UsageRow[]>;
  /** Deletes detailed rows older than `detailDays` and daily rows older than `dailyDays`; answers how many went. */
  sweep(retention: UsageRetention): Promise<number>;
}

/** Whose account a turn is counted on. */
export const LIMIT_SCOPES = ['user', 'channel', 'server'] as const;
export type LimitScope = (typeof LIMIT_SCOPES)[number];

/** The windowed limits: turns started in the last hour, tokens spent in the last 24 hours. */
export const LIMIT_KINDS = ['turns_per_hour', 'tokens_per_day'] as const;
export type LimitKind = (typeof LIMIT_KINDS)[number];

/** How long each limit's window is, in milliseconds. */
export const LIMIT_WINDOW_MS: Readonly<Record<LimitKind, number>> = { turns_per_hour: 3_600_000, tokens_per_day: 86_400_000 };

/** Who a turn counts against. `serverId` is absent in direct messages and on the console. */
export interface UsageOwner {
  readonly source: string;
  readonly userId: string;
  readonly channelId: string;
  readonly serverId?: string | undefined;
}

/** One limit to hold a message to: at most `max` of `kind` for its owner's `scope`. */
export interface ScopeLimit {
  readonly scope: LimitScope;
  readonly kind: LimitKind;
  readonly max: number;
}

export interface UsageAdmissionRequest {
  readonly identity: TurnIdentity;
  readonly owner: UsageOwner;
  /** The limits that apply to this message; none for an exempt requester, who is still counted. */
  readonly limits: readonly ScopeLimit[];
}

/** `refused`: `used` of `limit.max` were spent in its window; the count falls below the limit at `resetsAt` (epoch ms, by the store's clock). */
export type UsageAdmission = { readonly kind: 'counted' } | UsageRefusal;

/** A message refused by a limit (DESIGN §10.1). */
export type UsageRefusal = { readonly kind: 'refused'; readonly limit: ScopeLimit; readonly used: number; readonly resetsAt: number };

/** The tokens a model call reported (`null`: not reported) and what they cost, priced when they were spent (`null`: no price for the model). */
export interface ModelCallUsage {
  /** The model as the configuration names it: a fallback under its own name. */
  readonly model: string;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  /** Of the input, read from the provider's prompt cache. */
  readonly cachedInputTokens?: number | undefined;
  /** Of the output, spent on reasoning. */
  readonly reasoningTokens?: number | undefined;
  readonly cost: number | null;
}

/** A turn's spending: its tokens (input and output; a call that reported none adds nothing) and its cost (`null` while nothing priced was spent). */
export interface TurnSpent {
  readonly tokens: number;
  readonly cost: number | null;
}

/** The days a report covers: today, this calendar month, or the last `days` days with today (UTC days, by the store's clock). */
export type UsagePeriod = { readonly kind: 'today' } | { readonly kind: 'month' } | { readonly kind: 'days'; readonly days: number };

/** How a report splits its totals. */
export const USAGE_GROUPINGS = ['user', 'channel', 'server', 'model', 'day'] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

export interface UsageQuery {
  readonly period: UsagePeriod;
  /** Only this owner's usage; everyone's when absent. */
  readonly filter?: { readonly scope: LimitScope; readonly id: string; readonly source?: string };
  /** One row per user, channel, server or model, largest spender first, or per UTC day (`YYYY-MM-DD`), oldest first; one row of totals when absent. */
  readonly by?: UsageGrouping;
  /** At most this many grouped rows. */
  readonly limit?: number;
}

/** The totals of one report row. `key` is the user, channel, server, model or day it groups (empty for the totals). */
export interface UsageRow {
  readonly key: string;
  readonly turns: number;
  /** Messages refused by a limit. */
  readonly refusals: number;
  readonly calls: number;
  /** Calls whose provider reported no token counts. */
  readonly unknownCalls: number;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly reasoningTokens: number;
  /** `null` when none of it was priced. */
  readonly cost: number | null;
}

export interface UsageRetention {
  /** Detailed rows (the limits' windows and the turns' totals): at least a day, for the windows. */
  readonly detailDays: number;
  /** The daily totals. */
  readonly dailyDays: number;
}
