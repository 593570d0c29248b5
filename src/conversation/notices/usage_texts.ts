/**
 * What `/usage` answers (DESIGN §10.1): what the asker spent today and this month with the limits
 * on them where they asked, and for an admin what one user, one channel or the server spent, with
 * the largest spenders first. The words of a limit reached are in limit_texts.ts.
 */
import type { UsageRow } from '../../turn_state/usage_store.js';
import type { LimitsInForce } from '../turns/usage_admission.js';
import { costText, countText, limitSizeText } from './limit_texts.js';

/** What one owner spent today and this month; `undefined` for a period without any use. */
export interface UsagePeriods {
  readonly today: UsageRow | undefined;
  readonly month: UsageRow | undefined;
}

/** The limits `/usage` tells of, and whether there are none only because the one they would hold is an admin while admins are exempt. */
export interface LimitsShown {
  readonly limits: LimitsInForce;
  readonly exempt: boolean;
}

/** `/usage` alone: what the asker spent and the limits on them here, or that they spent nothing this month. */
export function ownUsageText(periods: UsagePeriods, shown: LimitsShown): string {
  const head = periods.month === undefined ? ['You have not used the bot this month.'] : ['Your use of the bot:', ...periodLines(periods)];
  return [...head, limitsText(shown, 'you')].join('\n');
}

/** An admin's `/usage` of one user: what they spent, and the limits on them where the admin asked. */
export function userUsageText(source: string, userId: string, periods: UsagePeriods, shown: LimitsShown): string {
  const who = userName(source, userId);
  const head = periods.month === undefined ? [`${who} has not used the bot this month.`] : [`Use of the bot by ${who}:`, ...periodLines(periods)];
  return [...head, limitsText(shown, 'them')].join('\n');
}

/** An admin's `/usage` of one channel: what was spent in it, and its largest spenders this month. */
export function channelUsageText(source: string, channelId: string, periods: UsagePeriods, topUsers: readonly UsageRow[]): string {
  const where = channelName(source, channelId);
  if (periods.month === undefined) return `Nobody used the bot in ${where} this month.`;
  return [`Use of the bot in ${where}:`, ...periodLines(periods), ...ranking('Top users this month:', topUsers, (id) => userName(source, id))].join('\n');
}

/** An admin's `/usage` of the server it was asked in: what was spent there, and its largest spenders and channels this month. */
export function serverUsageText(source: string, periods: UsagePeriods, topUsers: readonly UsageRow[], topChannels: readonly UsageRow[]): string {
  if (periods.month === undefined) return 'Nobody used the bot in this server this month.';
  return [
    'Use of the bot in this server:',
    ...periodLines(periods),
    ...ranking('Top users this month:', topUsers, (id) => userName(source, id)),
    ...ranking('Top channels this month:', topChannels, (id) => channelName(source, id)),
  ].join('\n');
}

/** `/usage` naming someone else, a channel or the server, asked by someone who is not an admin. */
export const USAGE_OF_OTHERS_REFUSED = 'Only the bot’s admins can see what others used: `/usage` alone shows what you used.';

/** `/usage server` where there is no server: a direct message, the console. */
export const NO_SERVER_HERE = 'There is no server here: `/usage server` works in a server’s channels.';

/** The usage could not be read from the store. */
export const USAGE_UNREADABLE = 'Usage cannot be read right now. Try again in a moment.';

/** An admin's `/usage` that names no one thing to show, or several: how to ask, as the transport takes it (`source`). */
export function usageHowText(source: string): string {
  return `Ask for one thing at a time: \`/usage\` (yours), ${usageFormsText(source)}.`;
}

/** How an admin names whose use `/usage` shows, as the transport takes it: Discord's slash options, or the words typed elsewhere. */
export function usageFormsText(source: string): string {
  return source === 'discord' ? '`/usage user:@name`, `channel:#channel` or `server:True`' : '`/usage user ID`, `/usage channel [ID]` or `/usage server`';
}

/** Today's and this month's figures, one line each. */
function periodLines({ today, month }: UsagePeriods): string[] {
  return [`• Today (UTC): ${today === undefined ? 'nothing yet' : figuresText(today, true)}`, `• This month: ${month === undefined ? 'nothing yet' : figuresText(month, true)}`];
}

/** A ranking of the largest spenders under `title`, each named by `name`; nothing when there is none. */
function ranking(title: string, rows: readonly UsageRow[], name: (key: string) => string): string[] {
  if (rows.length === 0) return [];
  return [title, ...rows.map((row, index) => `${index + 1}. ${row.key === '' ? 'none' : name(row.key)}: ${figuresText(row, false)}`)];
}

/**
 * One row's figures: requests, tokens (with input and output, and of them cached and reasoning,
 * when `detailed`), cost when priced, refusals when any: `3 requests, 1,200 tokens, cost 0.0040`.
 */
function figuresText(row: UsageRow, detailed: boolean): string {
  const tokens = row.inputTokens + row.outputTokens;
  const input = `${countText(row.inputTokens)} in${row.cachedInputTokens > 0 ? `, ${countText(row.cachedInputTokens)} of them cached` : ''}`;
  const output = `${countText(row.outputTokens)} out${row.reasoningTokens > 0 ? `, ${countText(row.reasoningTokens)} of them reasoning` : ''}`;
  const split = detailed && tokens > 0 ? ` (${input}; ${output})` : '';
  return [
    counted(row.turns, 'request', 'requests'),
    `${counted(tokens, 'token', 'tokens')}${split}`,
    ...(row.cost === null ? [] : [`cost ${costText(row.cost)}`]),
    ...(row.refusals > 0 ? [`${countText(row.refusals)} refused by a limit`] : []),
  ].join(', ');
}

/**
 * The limits on `whom` where `/usage` was asked: the windowed ones by whose they are, then those
 * of each request: `Limits here: 20 requests per hour and 100,000 tokens per 24 hours for you;
 * 500 requests per hour for this channel; at most 20,000 tokens per request.`
 */
function limitsText({ limits, exempt }: LimitsShown, whom: 'you' | 'them'): string {
  const owners = { user: `for ${whom}`, channel: 'for this channel', server: 'for this server' } as const;
  const windowed = (['user', 'channel', 'server'] as const).flatMap((scope) => {
    const sizes = limits.window.filter((limit) => limit.scope === scope).map((limit) => limitSizeText(limit.kind, limit.max));
    return sizes.length === 0 ? [] : [`${sizes.join(' and ')} ${owners[scope]}`];
  });
  const perTurn = [
    ...(limits.turn.maxTokens === undefined ? [] : [counted(limits.turn.maxTokens, 'token', 'tokens')]),
    ...(limits.turn.maxCost === undefined ? [] : [`${costText(limits.turn.maxCost)} in cost`]),
  ];
  const all = [...windowed, ...(perTurn.length === 0 ? [] : [`at most ${perTurn.join(' and ')} per request`])];
  if (all.length > 0) return `Limits here: ${all.join('; ')}.`;
  if (exempt) return `No limits apply to ${whom}: the bot’s admins are exempt.`;
  return `No limits apply to ${whom} here.`;
}

function counted(count: number, one: string, many: string): string {
  return `${countText(count)} ${count === 1 ? one : many}`;
}

/** A user as the transport shows them: a mention on Discord (which the bot's messages never ping), the id elsewhere. */
function userName(source: string, userId: string): string {
  return source === 'discord' ? `<@${userId}>` : `\`${userId}\``;
}

/** A channel as the transport shows it: a link on Discord, the id elsewhere. */
function channelName(source: string, channelId: string): string {
  return source === 'discord' ? `<#${channelId}>` : `\`${channelId}\``;
}
