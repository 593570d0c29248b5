/**
 * `/usage` (DESIGN §10.1): anyone sees what they spent today and this month, and the limits on
 * them where they ask; an admin may name a user, a channel or the server they ask in, and sees
 * its totals with its ten largest spenders this month. Read from the store's daily totals of the
 * transport the command came from.
 */
import { assertNever } from '../core/assert_never.js';
import { isAdmin } from '../tools/permissions.js';
import type { LimitScope, UsageQuery, UsageRow } from '../turn_state/usage_store.js';
import type { ConversationDeps } from './conversation_deps.js';
import {
  channelUsageText,
  NO_SERVER_HERE,
  ownUsageText,
  serverUsageText,
  USAGE_OF_OTHERS_REFUSED,
  USAGE_UNREADABLE,
  usageHowText,
  userUsageText,
  type LimitsShown,
  type UsagePeriods,
} from './notices/usage_texts.js';
import { limitsFor, type LimitsInForce } from './turns/usage_admission.js';
import { type Inbound, type InboundMessage, postNotice } from './transport.js';

/** `/usage`, as a transport hands it over. */
export type UsageCommand = Extract<Inbound, { readonly kind: 'usage' }>;

/** How many of the largest spenders an admin's `/usage` of a channel or the server lists. */
const TOP = 10;

type UsageDeps = Pick<ConversationDeps, 'config' | 'sink' | 'logger' | 'usage'>;

/**
 * Answers `/usage` at once, to the asker: their own use, or to an admin the use they named; a
 * name of someone else's use from anyone else is refused before anything is read. Never throws:
 * a store that cannot be read is logged and answered.
 */
export async function usageCommand(command: UsageCommand, deps: UsageDeps): Promise<void> {
  const { origin } = command;
  const subject = command.subject.kind === 'user' && command.subject.userId === origin.authorId ? { kind: 'own' as const } : command.subject;
  const admin = isAdmin(deps.config.permissions, origin.authorId);
  if (subject.kind !== 'own' && !admin) return postNotice(deps.sink, origin, null, 'rejected', USAGE_OF_OTHERS_REFUSED);
  try {
    const text = await answerFor(subject, origin, deps);
    postNotice(deps.sink, origin, null, text.kind, text.text);
  } catch (error) {
    deps.logger.error({ err: error, command: 'usage', user: origin.authorId }, 'the usage could not be read for /usage');
    postNotice(deps.sink, origin, null, 'failed', USAGE_UNREADABLE);
  }
}

/** The answer to `subject`, read from the store; an unclear one, or the server where there is none, is told how to ask. */
async function answerFor(subject: UsageCommand['subject'], origin: InboundMessage, deps: UsageDeps): Promise<{ readonly kind: 'status' | 'rejected'; readonly text: string }> {
  const { source } = origin;
  switch (subject.kind) {
    case 'own':
      return { kind: 'status', text: ownUsageText(await periodsOf(deps, 'user', origin.authorId, source), limitsShown(deps, origin, origin.authorId)) };
    case 'user':
      return { kind: 'status', text: userUsageText(source, subject.userId, await periodsOf(deps, 'user', subject.userId, source), limitsShown(deps, origin, subject.userId)) };
    case 'channel': {
      const filter = { scope: 'channel', id: subject.channelId, source } as const;
      return { kind: 'status', text: channelUsageText(source, subject.channelId, await periodsOf(deps, 'channel', subject.channelId, source), await topOf(deps, filter, 'user')) };
    }
    case 'server': {
      const serverId = origin.place?.guildId;
      if (serverId === undefined) return { kind: 'rejected', text: NO_SERVER_HERE };
      const filter = { scope: 'server', id: serverId, source } as const;
      return { kind: 'status', text: serverUsageText(source, await periodsOf(deps, 'server', serverId, source), await topOf(deps, filter, 'user'), await topOf(deps, filter, 'channel')) };
    }
    case 'unclear':
      return { kind: 'rejected', text: usageHowText(source) };
    default:
      return assertNever(subject);
  }
}

/** What one user, channel or server of `source` spent today and this month. */
async function periodsOf(deps: UsageDeps, scope: LimitScope, id: string, source: string): Promise<UsagePeriods> {
  const filter = { scope, id, source };
  const [today] = await deps.usage.report({ period: { kind: 'today' }, filter });
  const [month] = await deps.usage.report({ period: { kind: 'month' }, filter });
  return { today, month };
}

/** The largest spenders of `filter` this month, by user or by channel. */
function topOf(deps: UsageDeps, filter: NonNullable<UsageQuery['filter']>, by: 'user' | 'channel'): Promise<UsageRow[]> {
  return deps.usage.report({ period: { kind: 'month' }, filter, by, limit: TOP });
}

/** The limits on `userId` where `origin` was said, as the intake would hold a message of theirs there, and whether an admin's exemption is why there are none. */
function limitsShown(deps: UsageDeps, origin: InboundMessage, userId: string): LimitsShown {
  const theirs = { ...origin, authorId: userId };
  const limits = limitsFor(deps.config, theirs);
  if (!noLimits(limits)) return { limits, exempt: false };
  return { limits, exempt: !noLimits(limitsFor({ ...deps.config, limits: { ...deps.config.limits, admins_exempt: false } }, theirs)) };
}

function noLimits(limits: LimitsInForce): boolean {
  return limits.window.length === 0 && limits.turn.maxTokens === undefined && limits.turn.maxCost === undefined;
}
