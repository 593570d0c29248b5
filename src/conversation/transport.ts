import { createHash } from 'node:crypto';
import type { TurnStatus } from '../turn_state/turn_types.js';
import type { ApprovalVerdict } from '../turn_state/ledger_types.js';
import type { MessageAttachment } from './history/message_attachment.js';
import { marked } from '../core/marked.js';
import type { RouteHealth } from '../recovery/route_health.js';

/**
 * Where a message was said, beyond its channel, as far as the transport knows: on Discord, the
 * server, the channel a thread belongs to, and the category of the channel (of the thread's
 * channel, for a thread). Nothing for a direct message or the console. The access rules
 * read a thread's channel from it, and it decides which `overrides` entry applies.
 */
export interface MessagePlace {
  readonly guildId?: string;
  /** For a thread: the channel it belongs to. */
  readonly parentChannelId?: string;
  readonly categoryId?: string;
}

/**
 * How people call a message's place and author where it was said, as the transport shows them,
 * for the system prompt's `{server}`, `{channel}` and `{user}`. On Discord: the server's name
 * (`direct messages` in one), the channel's or thread's name, the author's display name there; the
 * console: `console`, `console`, `console-user`.
 */
export interface MessageNames {
  readonly server: string;
  readonly channel: string;
  readonly user: string;
}

/** A message as a transport hands it to the intake pipeline. */
export interface InboundMessage {
  readonly source: string;
  readonly channelId: string;
  readonly authorId: string;
  /** The author's roles where the transport has them (Discord servers); they decide the tools. */
  readonly authorRoleIds: readonly string[];
  readonly messageId: string;
  readonly text: string;
  /** The files that came with the message, downloaded and checked by the transport; none when absent. */
  readonly attachments?: readonly MessageAttachment[];
  /** Where it was said; nowhere in particular when absent. */
  readonly place?: MessagePlace;
  /** How its place and author are called; the prompt's names are left empty when absent. */
  readonly names?: MessageNames;
}

/**
 * A change to messages already sent, which the channel's history follows (DESIGN §1): an edit
 * (the message's new text, the bot's mention taken out) or a deletion of one or more messages.
 * A turn's frozen transcript stays as it was.
 */
export type MessageChange =
  | { readonly kind: 'edited'; readonly source: string; readonly channelId: string; readonly messageId: string; readonly text: string }
  | { readonly kind: 'deleted'; readonly source: string; readonly channelId: string; readonly messageIds: readonly string[] };

/**
 * What a transport hands the conversation: a typed command, or a message for the model. Each
 * carries the message it came in (channel, author, roles, id to answer). `spoken` marks the
 * word `continue`, which may just be conversation: with nothing saved it is a message like any
 * other; `resume` and `/resume` never are. `unknown` is a line shaped as a command (`/word`)
 * that names none: it is answered, never sent to the model.
 */
export type Inbound =
  | { readonly kind: 'message'; readonly origin: InboundMessage }
  | { readonly kind: 'stop'; readonly origin: InboundMessage }
  | { readonly kind: 'status'; readonly origin: InboundMessage }
  | { readonly kind: 'help'; readonly origin: InboundMessage }
  | { readonly kind: 'unknown'; readonly origin: InboundMessage; readonly command: string }
  | { readonly kind: 'resume'; readonly origin: InboundMessage; readonly turnId: string | undefined; readonly spoken: boolean }
  /** An admin's `/model`: `model` names the model the channel's turns try first, `default` gives back the configured order; absent, the channel's models are listed. */
  | { readonly kind: 'model'; readonly origin: InboundMessage; readonly model: string | undefined }
  /** `/usage`: what the asker spent, or, asked by an admin, what one user, one channel or the server spent. */
  | { readonly kind: 'usage'; readonly origin: InboundMessage; readonly subject: UsageSubject }
  | { readonly kind: 'turns'; readonly origin: InboundMessage; readonly scope: ChannelScope }
  | {
      readonly kind: 'resolve';
      readonly origin: InboundMessage;
      readonly scope: ChannelScope;
      /** The turn as the operator names it: its id or a prefix of it. */
      readonly turn: string;
      /** The call as the operator names it: `CALL` or `STEP:CALL`. */
      readonly call: string;
      /** `applied` or `not_applied` as the operator gave it; anything else is refused. */
      readonly verdict: string;
      readonly text: string | null;
    }
  /**
   * A person's answer to a request for approval (DESIGN §9.2): the request named by its id (a
   * button of it was pressed) or by the call (`/approve [CALL]`: the only one waiting in the
   * channel when absent, `STEP:CALL` or the id). `allowHere`: an admin's "always allow here".
   */
  | {
      readonly kind: 'approval';
      readonly origin: InboundMessage;
      readonly target: { readonly approvalId: string } | { readonly call: string | undefined };
      readonly verdict: ApprovalVerdict;
      readonly note: string | null;
      readonly allowHere: boolean;
    };

/**
 * Whose use `/usage` asks about: the asker's own; or an admin's choice of one user, one channel,
 * or the server it was asked in; `unclear` when its words or options name none of these, or more
 * than one.
 */
export type UsageSubject =
  { readonly kind: 'own' } | { readonly kind: 'user'; readonly userId: string } | { readonly kind: 'channel'; readonly channelId: string } | { readonly kind: 'server' } | { readonly kind: 'unclear' };

/**
 * Where an operator's command was used and speaks for (on Discord, the server): turns of other
 * channels are neither shown nor changed by it. It also says how channels and people are named
 * there, so that answers read as the transport shows them.
 */
export interface ChannelScope {
  /** How people call it, as in "nothing in this server". */
  readonly name: string;
  includes(channelId: string): Promise<boolean>;
  mentionChannel(channelId: string): string;
  mentionUser(userId: string): string;
}

/** Why the bot posted a notice rather than a reply; an `operator` notice answers an operator's command and is shown to them alone, never in a channel. */
export const NOTICE_KINDS = [
  'suspended',
  'resumed',
  'interrupted',
  'cancelled',
  'manual_resolution',
  'resolved',
  'rejected',
  'failed',
  'expired',
  'already_processed',
  'in_progress',
  'busy',
  'limited',
  'status',
  'operator',
] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/**
 * What the bot tells a transport to show, in order; `inReplyTo` is the id of the message it
 * answers. Final replies are not events: they go through {@link ReplySink.deliver}.
 */
export type BotEvent =
  | { readonly type: 'message'; readonly channelId: string; readonly inReplyTo: string; readonly turn: string | null; readonly kind: 'notice'; readonly notice: NoticeKind; readonly text: string }
  | { readonly type: 'delta'; readonly channelId: string; readonly inReplyTo: string; readonly turn: string; readonly text: string }
  /** The turn waits to try the model again (it was overloaded or unreachable); `text` says so, for its draft. A retried attempt streams its text afresh. */
  | { readonly type: 'waiting'; readonly channelId: string; readonly inReplyTo: string; readonly turn: string; readonly attempt: number; readonly text: string }
  /** The turn is busy with something other than writing (its tools run): `text` says what, for its draft, until text streams again. */
  | { readonly type: 'working'; readonly channelId: string; readonly inReplyTo: string; readonly turn: string; readonly text: string }
  | { readonly type: 'turn'; readonly channelId: string; readonly turn: string; readonly status: TurnStatus }
  /** A request for approval was answered: its message `messageId` now reads `text`, and takes no more answers. */
  | { readonly type: 'approval_settled'; readonly channelId: string; readonly messageId: string; readonly text: string }
  /** New text for the last notice of kind `notice` told about `turn` (the suspended notice, after an automatic try): a transport that can edits it in place, another may show nothing. */
  | { readonly type: 'notice_update'; readonly channelId: string; readonly turn: string; readonly notice: NoticeKind; readonly text: string };

/** A completed turn's final reply, to be delivered in parts that the transport confirms one by one. */
export interface FinalReply {
  readonly channelId: string;
  /** The id of the message the reply answers. */
  readonly inReplyTo: string;
  readonly turn: string;
  readonly text: string;
  /** Parts an earlier process confirmed: they are not posted again. */
  readonly partsDelivered: number;
  /** Whether an earlier process may have posted some of it without confirming (a delivery after a restart). */
  readonly redelivery: boolean;
  /** The model that wrote it, when the bot has fallback models (DESIGN §5.4). */
  readonly model?: string;
  /** A line to show below it where the transport can (Discord): `llm.fallback_note` for a reply written by a fallback model. */
  readonly note?: string;
}

/**
 * A request for a person's approval of one call (DESIGN §9.2), as a transport shows it: `text`
 * says what and who may answer; the transport adds its way of answering — Discord's buttons carry
 * `approvalId`, so that they work from any process and after any restart; the console names `call`.
 */
export interface ApprovalAsk {
  readonly channelId: string;
  readonly inReplyTo: string;
  readonly turn: string;
  readonly approvalId: string;
  readonly call: string;
  readonly text: string;
}

/** Where the bot's events go: the transport renders them (DESIGN §2). */
export interface ReplySink {
  post(event: BotEvent): void;
  /** Posts a request for approval; resolves with the id of the message that asks, `undefined` when there is none to edit later. */
  askApproval(ask: ApprovalAsk): Promise<string | undefined>;
  /**
   * Delivers a final reply, after whatever the channel was shown before it. `confirmed(n)` is
   * awaited each time the transport confirms that the first `n` parts are posted and more are to
   * come; it resolves with the number of parts the reply took once the last is confirmed too.
   * Rejects when the transport gives up, with a {@link ReplyUndeliverable} when trying again later
   * cannot help.
   */
  deliver(reply: FinalReply, confirmed: (partsDelivered: number) => Promise<void>): Promise<number>;
}

const UNDELIVERABLE = marked<ReplyUndeliverable>('ReplyUndeliverable');

/** The transport refused a reply for good (the channel is gone, the bot may not post there): posting it again cannot help. */
export class ReplyUndeliverable extends Error {
  override readonly name = 'ReplyUndeliverable';
  constructor(
    readonly turn: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`the reply of turn ${turn} cannot be delivered: ${reason}`, options);
    UNDELIVERABLE.mark(this);
  }
}

/** Whether `error` is a {@link ReplyUndeliverable}, from any copy of this module. */
export function isReplyUndeliverable(error: unknown): error is ReplyUndeliverable {
  return UNDELIVERABLE.is(error);
}

/** The original message of a turn as the transport sees it now; `undefined` when it was deleted. */
export interface OriginalMessage {
  readonly authorId: string;
  /** The roles its author holds now, where the transport has them (Discord servers): a turn continued after a restart offers the tools they allow. */
  readonly authorRoleIds?: readonly string[];
  /** {@link messageDigest} of its current text. */
  readonly digest: string;
  /** Where it was said, for the `overrides` entry a resumed turn is shaped by; nowhere in particular when absent. */
  readonly place?: MessagePlace;
}

/** A turn's original message, and its author and digest as they were when it was admitted. */
export interface OriginalRef {
  readonly channelId: string;
  readonly messageId: string;
  readonly authorId: string;
  readonly digest: string;
}

/** The transport's view of past messages, for checking a turn's message before it is resumed (DESIGN §9). */
export interface MessageSource {
  fetchOriginal(ref: OriginalRef): Promise<OriginalMessage | undefined>;
}

/** The channels of one transport that this process answers for (DESIGN §7.7). */
export interface ServedChannels {
  /** The `source` of the messages it hands over (`console`, `discord`). */
  readonly source: string;
  /**
   * Whether this process serves `channelId`, once connected: work left in a channel it does not
   * serve (a queued message, a reply to post) waits for the process that does. Discord: the
   * channels of the servers its shards own, and direct messages with shard 0; the console:
   * every channel. Never rejects: `false` when it cannot tell now.
   */
  serves(channelId: string): Promise<boolean>;
}

/** Every channel of `source`: one process is the whole bot. */
export function everyChannelOf(source: string): ServedChannels {
  return { source, serves: () => Promise.resolve(true) };
}

/**
 * One transport (DESIGN §2): it connects, hands typed commands to the conversation, and renders
 * what the bot says. The program drives every transport through the same lifecycle.
 */
export interface Transport extends ServedChannels {
  /** Connects (logs in); resolves with where the bot's events go and where past messages are read. */
  connect(): Promise<{ readonly sink: ReplySink; readonly messages: MessageSource }>;
  /**
   * Hands each inbound command to `submit`, and each edit or deletion of a message to `follow`
   * (where the transport has them); resolves when the input ends by itself (the console's end of input), else never.
   */
  listen(submit: (inbound: Inbound) => void, follow?: (change: MessageChange) => void): Promise<void>;
  /** Stops taking input and ends the transport's own waits; unfinished deliveries are posted after the next start. */
  stopInput(): void;
  /** Whether it is connected now (Discord: the gateway is ready; the console: its input is being read), for the readiness check. */
  connected(): boolean;
  /**
   * Shows everyone whether the models of the default route are all refused by their breakers,
   * where the transport has a place for it (Discord: the bot's presence); called at each change
   * once connected. A transport without one leaves it out.
   */
  showHealth?(health: RouteHealth): void;
  /** Disconnects, after the conversation has shut down. */
  close(): Promise<void>;
}

/** The digest a turn keeps of its message's text, to notice an edit before a resume. */
export function messageDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Posts a notice in `message`'s channel, as an answer to it. */
export function postNotice(sink: ReplySink, message: InboundMessage, turn: string | null, notice: NoticeKind, text: string): void {
  sink.post({ type: 'message', channelId: message.channelId, inReplyTo: message.messageId, turn, kind: 'notice', notice, text });
}

/** The conversation a message belongs to: one per channel of each transport. */
export function channelKey(message: Pick<InboundMessage, 'source' | 'channelId'>): string {
  return `${message.source}:${message.channelId}`;
}
