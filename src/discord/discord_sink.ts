import type { Client, Message, TextBasedChannel } from 'discord.js';
import { ReplyUndeliverable, type BotEvent, type ReplySink } from '../conversation/transport.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { DISCORD_MESSAGE_LIMIT, splitMessage } from './message_split.js';
import type { CommandAnswers } from './command_answers.js';
import { isRefusedByDiscord, withDiscordRetry, type DiscordRetryPolicy } from './discord_retry.js';
import { postReplyParts, replyNonce, replyReference, type ReplyChannel } from './reply_posting.js';
import { NOTICE_MARK, SAFE_MENTIONS } from './mention_policy.js';
import { NoticeMessages } from './notice_messages.js';
import { RequestBudget } from './request_budget.js';
import { TypingIndicators } from './typing.js';
import { approvalButtons } from './approval_buttons.js';
import { PRESS_AGAIN_TEXT } from '../conversation/notices/approval_texts.js';
import { assertNever } from '../core/assert_never.js';
import { KeyedSerialQueue } from '../core/keyed_queue.js';

type SendableChannel = TextBasedChannel & ReplyChannel & { sendTyping: () => Promise<unknown> };

/** A reply being streamed into one Discord message, edited as text arrives or while the turn waits for the model. */
interface Stream {
  text: string;
  /** What the draft says while the turn waits for the model or runs its tools; `undefined` once text streams again. */
  waiting: string | undefined;
  message: Message | undefined;
  /** What the draft shows now, as last posted or edited. */
  shown: string | undefined;
  lastEditAt: number;
  /** An edit the interval held back is due: one is scheduled for when the interval has passed. */
  refreshDue: boolean;
}

export interface DiscordSinkOptions {
  readonly client: Client<true>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The least time between two edits of a streamed reply or its waiting state. */
  readonly editIntervalMs: number;
  /** Discord's global limit on the bot's REST requests: past half of it, no typing indicator is shown. */
  readonly requestsPerSecond: number;
  /** How a final reply's requests are tried again when Discord fails to take them. */
  readonly delivery: DiscordRetryPolicy;
  /** Slash commands open for answers: a notice answering one goes to its user alone. */
  readonly commands: CommandAnswers;
}

/**
 * The bot's events on Discord: a reply streams into a reply to the message it answers, edited at
 * most once per `editIntervalMs` (while the turn waits for the model, that draft says so, the
 * latest wait shown once the interval allows), and ends split into follow-ups when longer than a
 * message, at line or sentence boundaries; notices are marked, and those answering a slash command are shown
 * to its user alone (an operator's answer is never shown in the channel instead); a working turn shows the typing indicator until it shows text.
 * An update of a turn's notice edits the message that showed it, when there is one to edit.
 * Final replies are delivered durably (see {@link postReplyParts}). Nothing posted can ping
 * @everyone, a role or a user. What one channel gets is posted in order. Under load the typing
 * indicator gives way to replies ({@link RequestBudget}).
 */
export function discordSink(options: DiscordSinkOptions): ReplySink {
  const { client, clock, logger } = options;
  const queue = new KeyedSerialQueue();
  const streams = new Map<string, Stream>();
  const notices = new NoticeMessages();
  const inOrder = <T>(channelId: string, work: (channel: SendableChannel) => Promise<T>): Promise<T> =>
    queue.run(channelId, async () => {
      // A channel of a server another shard owns has no server in this process's cache, yet Discord takes a post to it from any shard.
      const channel = await withDiscordRetry(options.delivery, async () => (await client.channels.fetch(channelId)) ?? client.channels.fetch(channelId, { allowUnknownGuild: true }));
      if (channel === null || !channel.isTextBased() || !('send' in channel)) throw new Error(`channel ${channelId} cannot take messages`);
      return work(channel);
    });
  const budget = new RequestBudget(clock, options.requestsPerSecond);
  const post = (channelId: string, work: (channel: SendableChannel) => Promise<unknown>): void => {
    inOrder(channelId, work).catch((error: unknown) => logger.error({ err: error, channel: channelId }, 'could not post to Discord'));
  };
  const typing = new TypingIndicators(
    clock,
    // Decided when the channel's turn comes, after the requests queued before it went out.
    (channelId) =>
      post(channelId, async (channel) => {
        if (budget.spareForOptional()) await channel.sendTyping();
      }),
    options.delivery.signal,
  );
  const streamOf = (turn: string): Stream => {
    const stream = streams.get(turn) ?? { text: '', waiting: undefined, message: undefined, shown: undefined, lastEditAt: Number.NEGATIVE_INFINITY, refreshDue: false };
    streams.set(turn, stream);
    return stream;
  };
  /** Shows the draft as it is when the channel's turn comes; a wait held back by the interval is shown once the interval has passed. */
  const drawDraft = (event: { readonly channelId: string; readonly inReplyTo: string; readonly turn: string }, stream: Stream): void =>
    post(event.channelId, async (channel) => {
      const content = stream.waiting ?? stream.text;
      const now = clock.monotonicNow();
      if (content.length > DISCORD_MESSAGE_LIMIT || content === stream.shown) return;
      const heldFor = options.editIntervalMs - (now - stream.lastEditAt);
      if (heldFor > 0) {
        if (stream.waiting !== undefined && !stream.refreshDue) {
          stream.refreshDue = true;
          clock.sleep(heldFor, options.delivery.signal).then(
            () => {
              stream.refreshDue = false;
              if (streams.get(event.turn) === stream) drawDraft(event, stream);
            },
            () => undefined,
          );
        }
        return;
      }
      stream.lastEditAt = now;
      budget.spend();
      if (stream.message === undefined) {
        stream.message = await channel.send({
          content,
          ...replyReference(event.inReplyTo),
          nonce: replyNonce(event.turn, `draft:${event.inReplyTo}`),
          enforceNonce: true,
          allowedMentions: SAFE_MENTIONS,
        });
      } else await stream.message.edit({ content, allowedMentions: SAFE_MENTIONS });
      stream.shown = content;
    });
  return {
    post(event: BotEvent) {
      switch (event.type) {
        case 'delta': {
          typing.stop(event.turn);
          const stream = streamOf(event.turn);
          stream.waiting = undefined;
          stream.text += event.text;
          drawDraft(event, stream);
          return;
        }
        case 'waiting': {
          const stream = streamOf(event.turn);
          // The next attempt streams its text from the start.
          stream.text = '';
          stream.waiting = `${NOTICE_MARK}${event.text}`;
          drawDraft(event, stream);
          return;
        }
        case 'working': {
          // What ran before stays in the draft: the text that streams next goes on from it.
          const stream = streamOf(event.turn);
          stream.waiting = `${NOTICE_MARK}${event.text}`;
          drawDraft(event, stream);
          return;
        }
        case 'message': {
          const stream = event.turn === null ? undefined : streams.get(event.turn);
          if (event.turn !== null) {
            streams.delete(event.turn);
            typing.stop(event.turn);
          }
          post(event.channelId, async (channel) => {
            const [first = '', ...rest] = splitMessage(`${NOTICE_MARK}${event.text}`);
            // A slash command's answer goes to its user alone; a streamed draft becomes the notice that replaces it.
            if (stream?.message === undefined && (await options.commands.answer(event.inReplyTo, first))) {
              for (const part of rest) await options.commands.answer(event.inReplyTo, part);
              return;
            }
            if (event.notice === 'operator') {
              logger.warn({ channel: event.channelId, command: event.inReplyTo }, 'the answer to an operator’s command could not be shown to them alone, so it is not shown at all');
              return;
            }
            budget.spend(1 + rest.length);
            const shown = stream?.message ?? (await channel.send({ content: first, ...replyReference(event.inReplyTo), allowedMentions: SAFE_MENTIONS }));
            if (stream?.message !== undefined) await stream.message.edit({ content: first, allowedMentions: SAFE_MENTIONS });
            if (event.turn !== null && rest.length === 0) notices.shown(event.turn, event.notice, shown);
            for (const part of rest) await channel.send({ content: part, allowedMentions: SAFE_MENTIONS });
          });
          return;
        }
        case 'notice_update':
          // Looked up when the channel's turn comes: the notice it edits may still be on its way.
          post(event.channelId, async () => {
            const [content = ''] = splitMessage(`${NOTICE_MARK}${event.text}`);
            const notice = notices.find(event.turn, event.notice);
            if (notice === undefined) return;
            budget.spend();
            await notice.edit({ content, allowedMentions: SAFE_MENTIONS });
          });
          return;
        case 'approval_settled':
          post(event.channelId, async (channel) => {
            budget.spend();
            await channel.messages.edit(event.messageId, { content: `${NOTICE_MARK}${event.text}`, components: [], allowedMentions: SAFE_MENTIONS });
          });
          return;
        case 'turn':
          if (event.status === 'ACTIVE') typing.start(event.turn, event.channelId);
          else typing.stop(event.turn);
          if (event.status !== 'ACTIVE' && event.status !== 'SUSPENDED') notices.forget(event.turn);
          return;
        default:
          return assertNever(event);
      }
    },
    async askApproval(ask) {
      typing.stop(ask.turn);
      let posted: string | undefined;
      await inOrder(ask.channelId, async (channel) => {
        budget.spend();
        // The nonce makes a send that Discord took but did not answer come back as the same message when tried again.
        const message = await withDiscordRetry(options.delivery, () =>
          channel.send({
            content: `${NOTICE_MARK}${ask.text}\n${PRESS_AGAIN_TEXT}`,
            ...replyReference(ask.inReplyTo),
            components: [approvalButtons(ask.approvalId)],
            nonce: replyNonce(ask.turn, `approval:${ask.approvalId}`),
            enforceNonce: true,
            allowedMentions: SAFE_MENTIONS,
          }),
        );
        posted = message.id;
      });
      return posted;
    },
    deliver(reply, confirmed) {
      typing.stop(reply.turn);
      const stream = streams.get(reply.turn);
      streams.delete(reply.turn);
      // The draft is read when the channel's turn comes: the deltas queued before may still be creating it.
      return inOrder(reply.channelId, (channel) => {
        budget.spend();
        return postReplyParts(
          channel,
          reply.note === undefined ? reply : { ...reply, text: `${reply.text}\n${reply.note}` },
          { draft: stream?.message, lookForEarlier: reply.redelivery || (stream !== undefined && stream.message === undefined), botUserId: client.user.id, policy: options.delivery },
          confirmed,
        );
      }).catch((error: unknown) => {
        // Discord refused (the channel is gone, the bot may not post there): no later attempt can do better.
        throw isRefusedByDiscord(error) ? new ReplyUndeliverable(reply.turn, String(error), { cause: error }) : error;
      });
    },
  };
}
