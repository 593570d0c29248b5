import type { TurnRecord } from './turn_types.js';

/**
 * Where a completed turn's final reply stands: stored and not yet confirmed by the transport
 * (`pending`), confirmed (`delivered`), or refused for good by the transport (`abandoned`, e.g.
 * the channel is gone). Only a pending reply keeps its text.
 */
export const REPLY_STATES = ['pending', 'delivered', 'abandoned'] as const;
export type ReplyState = (typeof REPLY_STATES)[number];

/** The model that wrote a reply's last step, and whether it was a fallback: not the turn's first model (DESIGN §5.4). */
export interface ReplyAuthor {
  readonly model: string;
  readonly fallback: boolean;
}

/** A reply stored with its completed turn whose delivery was never confirmed: posted after a restart. */
export interface PendingReply {
  readonly turn: TurnRecord;
  readonly text: string;
  readonly partsDelivered: number;
  /** The model that wrote it; unknown for a reply stored before models were kept with replies. */
  readonly writtenBy?: ReplyAuthor;
}

/** A step of a reply's delivery: more parts confirmed, all of them (how many it took), or given up for good. */
export type ReplyProgress =
  { readonly kind: 'parts_delivered'; readonly partsDelivered: number } | { readonly kind: 'delivered'; readonly partsDelivered: number } | { readonly kind: 'abandoned'; readonly reason: string };
