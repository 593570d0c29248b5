/** What the trigger rules look at in a Discord message. */
export interface TriggerView {
  readonly authorId: string;
  readonly authorIsBot: boolean;
  readonly channelId: string;
  /** The channel a thread belongs to, for threads; each thread is still its own conversation. */
  readonly parentChannelId: string | undefined;
  readonly isDirectMessage: boolean;
  readonly mentionsBot: boolean;
  readonly repliesToBot: boolean;
}

/**
 * Whether a message is for the bot: a mention of it, a reply to one of its messages, a direct
 * message, or any message in (a thread of) a channel listed in `discord.channels`. Messages from
 * bots, the bot itself included, never are.
 */
export function addressesBot(view: TriggerView, botUserId: string, listenChannels: readonly string[]): boolean {
  if (view.authorIsBot || view.authorId === botUserId) return false;
  if (view.isDirectMessage || view.mentionsBot || view.repliesToBot) return true;
  return listenChannels.includes(view.channelId) || (view.parentChannelId !== undefined && listenChannels.includes(view.parentChannelId));
}

/** The message text without the leading mention of the bot, which is how people address it. */
export function withoutBotMention(content: string, botUserId: string): string {
  return content.replace(new RegExp(`^\\s*<@!?${botUserId}>\\s*`), '').trim();
}

/**
 * Mentions the bot's posts may make: none from the text (model output can never ping @everyone,
 * a role or a user); only the reply's reference notifies the person who asked.
 */
export const SAFE_MENTIONS = { parse: [] as never[], repliedUser: true } as const;

/** How the bot's notices start, so that they are told apart from replies, by people and by the bot after a restart. */
export const NOTICE_MARK = 'ℹ️ ';
