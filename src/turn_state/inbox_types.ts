import type { TurnIdentity } from './turn_types.js';

/**
 * A message accepted into its channel's queue (DESIGN §8.1), as the inbox keeps it until its
 * admission takes it. The store keeps `message` as the conversation wrote it (plain JSON) and
 * never reads inside it.
 */
export interface InboundRecord {
  readonly identity: TurnIdentity;
  readonly message: unknown;
}

/** A message waiting in the inbox, in the order it was accepted. */
export interface InboxEntry extends InboundRecord {
  /** Grows with every message accepted: the inbox's order. */
  readonly id: number;
  /** When it was accepted, epoch milliseconds from the Clock port. */
  readonly acceptedAt: number;
}
