import { createHash } from 'node:crypto';
import type { Message, MessageCreateOptions } from 'discord.js';
import type { FinalReply } from '../conversation/transport.js';
import { isRefusedByDiscord, withDiscordRetry, type DiscordRetryPolicy } from './discord_retry.js';
import { splitMessage } from './message_split.js';
import { NOTICE_MARK, SAFE_MENTIONS } from './mention_policy.js';

/** The part of a text channel that posting a reply uses. */
export interface ReplyChannel {
  send(options: MessageCreateOptions): Promise<Message>;
  readonly messages: { fetch(options: { after: string; limit: number }): Promise<ReadonlyMap<string, Message>> };
}

/** Discord's limit on a nonce's length. */
const NONCE_LENGTH = 25;

/**
 * The nonce of one part of a turn's reply, of its draft streamed in answer to one message (a
 * resumed turn streams a new one), or of a request for a call's approval: the same on every attempt and after a restart, so that Discord
 * (with `enforce_nonce`) answers a repeated post with the message already made.
 */
export function replyNonce(turnId: string, part: number | `draft:${string}` | `approval:${string}`): string {
  return createHash('sha256').update(`${turnId}:${part}`).digest('base64url').slice(0, NONCE_LENGTH);
}

/** What posting one reply works with besides the channel. */
export interface ReplyPosting {
  /** The message the reply streamed into, if the stream created one. */
  readonly draft: Message | undefined;
  /**
   * Whether the bot may already have posted to this reply without knowing its message: after a
   * restart, or when the draft's creation was not confirmed.
   */
  readonly lookForEarlier: boolean;
  readonly botUserId: string;
  readonly policy: DiscordRetryPolicy;
}

/**
 * Posts a final reply from its first unconfirmed part, split into messages Discord takes. The
 * first part replaces the streamed draft when there is one; when `lookForEarlier`, the bot's own
 * earlier reply to the same message (a draft, or a first part whose confirmation was lost) is
 * looked up and replaced the same way. Every post carries its part's nonce; every request is
 * retried by the policy. `confirmed(n)` is awaited after each part but the last; resolves with the
 * number of parts, for the caller to record the whole reply.
 * @throws Discord's refusal of a post (see isRefusedByDiscord) at once, or its last failure once the policy gives up.
 */
export async function postReplyParts(channel: ReplyChannel, reply: FinalReply, posting: ReplyPosting, confirmed: (partsDelivered: number) => Promise<void>): Promise<number> {
  const { policy } = posting;
  const parts = splitMessage(reply.text);
  let earlier = posting.draft;
  if (earlier === undefined && posting.lookForEarlier && reply.partsDelivered === 0) earlier = await earlierReply(channel, reply.inReplyTo, posting.botUserId, policy);
  for (let part = reply.partsDelivered; part < parts.length; part += 1) {
    const content = parts[part] ?? '';
    const replaced = part === 0 && earlier !== undefined ? await replaceDraft(earlier, content, policy) : false;
    if (!replaced) {
      const options: MessageCreateOptions = {
        content,
        nonce: replyNonce(reply.turn, part),
        enforceNonce: true,
        allowedMentions: SAFE_MENTIONS,
        ...(part === 0 ? replyReference(reply.inReplyTo) : {}),
      };
      await withDiscordRetry(policy, () => channel.send(options));
    }
    if (part + 1 < parts.length) await confirmed(part + 1);
  }
  return parts.length;
}

/**
 * What makes a message a reply to `messageId`: Discord takes only a message's id (a snowflake)
 * there and refuses the whole message for anything else, so an answer to no Discord message (a
 * turn continued by itself answers `auto-<turn>`) is posted without a reference.
 */
export function replyReference(messageId: string): Pick<MessageCreateOptions, 'reply'> {
  return /^\d+$/.test(messageId) ? { reply: { messageReference: messageId, failIfNotExists: false } } : {};
}

/** Edits the draft into the reply's first part; `false` when the draft is gone (someone deleted it), so the part is posted anew. */
async function replaceDraft(draft: Message, content: string, policy: DiscordRetryPolicy): Promise<boolean> {
  try {
    await withDiscordRetry(policy, () => draft.edit({ content, allowedMentions: SAFE_MENTIONS }));
    return true;
  } catch (error) {
    if (isRefusedByDiscord(error)) return false;
    throw error;
  }
}

/** The bot's own reply to `messageId` that is not a notice, among the messages after it. */
async function earlierReply(channel: ReplyChannel, messageId: string, botUserId: string, policy: DiscordRetryPolicy): Promise<Message | undefined> {
  let after: ReadonlyMap<string, Message>;
  try {
    after = await withDiscordRetry(policy, () => channel.messages.fetch({ after: messageId, limit: 50 }));
  } catch (error) {
    // Without the history permission the reply is posted anew, as it would be without a draft.
    if (isRefusedByDiscord(error)) return undefined;
    throw error;
  }
  return [...after.values()].find((message) => message.author.id === botUserId && message.reference?.messageId === messageId && !message.content.startsWith(NOTICE_MARK));
}
