import { createHash } from 'node:crypto';
import type { TurnRecord, TurnStatus } from '../turn_state/turn_types.js';

/** A message as a transport hands it to the intake pipeline. */
export interface InboundMessage {
  readonly source: string;
  readonly channelId: string;
  readonly authorId: string;
  /** The author's roles where the transport has them (Discord servers); they decide the tools. */
  readonly authorRoleIds: readonly string[];
  readonly messageId: string;
  readonly text: string;
}

/** Why the bot posted a notice rather than a reply. */
export const NOTICE_KINDS = [
  'suspended',
  'resumed',
  'interrupted',
  'cancelled',
  'manual_resolution',
  'rejected',
  'failed',
  'expired',
  'already_processed',
  'in_progress',
  'busy',
  'status',
] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** What the bot tells a transport to show, in order; `inReplyTo` is the id of the message it answers. */
export type BotEvent =
  | { readonly type: 'message'; readonly channelId: string; readonly inReplyTo: string; readonly turn: string | null; readonly kind: 'reply'; readonly text: string }
  | { readonly type: 'message'; readonly channelId: string; readonly inReplyTo: string; readonly turn: string | null; readonly kind: 'notice'; readonly notice: NoticeKind; readonly text: string }
  | { readonly type: 'delta'; readonly channelId: string; readonly inReplyTo: string; readonly turn: string; readonly text: string }
  | { readonly type: 'turn'; readonly channelId: string; readonly turn: string; readonly status: TurnStatus };

/** Where the bot's events go: the transport renders them (DESIGN §2). */
export interface ReplySink {
  post(event: BotEvent): void;
}

/** The original message of a turn as the transport sees it now; `undefined` when it was deleted. */
export interface OriginalMessage {
  readonly authorId: string;
  /** {@link messageDigest} of its current text. */
  readonly digest: string;
}

/** The transport's view of past messages, for checking a turn's message before it is resumed (DESIGN §9). */
export interface MessageSource {
  fetchOriginal(turn: TurnRecord): Promise<OriginalMessage | undefined>;
}

/** The digest a turn keeps of its message's text, to notice an edit before a resume. */
export function messageDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
