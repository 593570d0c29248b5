import { assertNever } from '../../core/assert_never.js';
import type { Logger } from '../../core/logger.js';
import type { AdmissionStore } from '../../turn_state/turn_store.js';
import { channelKey, type InboundMessage, type MessageNames, type MessagePlace, type ServedChannels } from '../transport.js';
import { z } from 'zod';
import { ATTACHMENT_SKIP_REASONS, IMAGE_MEDIA_TYPES, type MessageAttachment } from '../history/message_attachment.js';

/**
 * Where a queued message is kept until its turn starts (DESIGN §8.1): in the store's inbox (which
 * keeps nothing when durability is off), in memory alone (the words `resume` and `continue` taken
 * for a message), or nowhere because the store failed to take it.
 */
export type KeptMessage = { readonly kind: 'inbox'; readonly id: number } | { readonly kind: 'memory' } | { readonly kind: 'unavailable'; readonly error: unknown };

/** Keeps a message accepted into its channel's queue; never throws. */
export async function keepMessage(store: AdmissionStore, message: InboundMessage, logger: Logger): Promise<KeptMessage> {
  try {
    const identity = { source: message.source, channelId: message.channelId, messageId: message.messageId };
    return { kind: 'inbox', id: await store.acceptInbound({ identity, message }) };
  } catch (error) {
    logger.error({ err: error, channel: message.channelId, message: message.messageId }, 'a queued message could not be kept: the store is unavailable');
    return { kind: 'unavailable', error };
  }
}

/**
 * The messages of each channel being written to the inbox, so that whatever is said in a channel
 * after a message was taken (a `busy` answer) waits until that message is kept.
 */
export class KeptInOrder {
  readonly #latest = new Map<string, Promise<void>>();

  /** Keeps `message` as {@link keepMessage} does, remembering it as its channel's latest. */
  keep(store: AdmissionStore, message: InboundMessage, logger: Logger): Promise<KeptMessage> {
    const key = channelKey(message);
    const kept = keepMessage(store, message, logger);
    const settled = kept.then(() => undefined);
    this.#latest.set(key, settled);
    void settled.then(() => {
      if (this.#latest.get(key) === settled) this.#latest.delete(key);
    });
    return kept;
  }

  /** Resolves once every message taken so far in the channel of `origin` is kept. */
  settled(origin: InboundMessage): Promise<void> {
    return this.#latest.get(channelKey(origin)) ?? Promise.resolve();
  }
}

/** The inbox id of a kept message, for its admission to take it out. */
export function inboxIdOf(kept: KeptMessage): number | undefined {
  switch (kept.kind) {
    case 'inbox':
      return kept.id;
    case 'memory':
    case 'unavailable':
      return undefined;
    default:
      return assertNever(kept);
  }
}

/** Takes a message out of the inbox that was answered with a notice instead of a turn; never throws. */
export async function dropKept(store: AdmissionStore, kept: KeptMessage, logger: Logger): Promise<void> {
  const id = inboxIdOf(kept);
  if (id === undefined) return;
  try {
    await store.dropInbound(id);
  } catch (error) {
    logger.error({ err: error, inboxId: id }, 'an answered message could not be taken out of the inbox');
  }
}

/** A message that waited in the inbox when the last process stopped. */
export interface WaitingMessage {
  readonly message: InboundMessage;
  readonly kept: KeptMessage;
  readonly acceptedAt: number;
}

/**
 * The messages of `channels` that were accepted and never started, oldest first, in the channels
 * this process serves: the others' stay in the inbox, untouched, for the process that serves
 * them (DESIGN §7.7). An entry this code cannot read is logged and dropped: it cannot be answered.
 */
export async function waitingMessages(store: AdmissionStore, channels: ServedChannels, logger: Logger): Promise<WaitingMessage[]> {
  const waiting: WaitingMessage[] = [];
  for (const entry of await store.listInbox(channels.source)) {
    if (!(await channels.serves(entry.identity.channelId))) continue;
    const message = decodeInbound(entry.message);
    if (message === undefined) {
      logger.error({ inboxId: entry.id, channel: entry.identity.channelId, message: entry.identity.messageId }, 'an inbox entry is not a message this bot wrote: dropped unanswered');
      await dropKept(store, { kind: 'inbox', id: entry.id }, logger);
      continue;
    }
    waiting.push({ message, kept: { kind: 'inbox', id: entry.id }, acceptedAt: entry.acceptedAt });
  }
  return waiting;
}

const attachment = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('image'), name: z.string(), mediaType: z.enum(IMAGE_MEDIA_TYPES), data: z.string() }),
  z.strictObject({ kind: z.literal('text'), name: z.string(), text: z.string() }),
  z.strictObject({ kind: z.literal('skipped'), name: z.string(), reason: z.enum(ATTACHMENT_SKIP_REASONS), limitBytes: z.int().nonnegative().exactOptional() }),
]) satisfies z.ZodType<MessageAttachment>;

const place = z.strictObject({
  guildId: z.string().min(1).exactOptional(),
  parentChannelId: z.string().min(1).exactOptional(),
  categoryId: z.string().min(1).exactOptional(),
}) satisfies z.ZodType<MessagePlace>;

const names = z.strictObject({ server: z.string(), channel: z.string(), user: z.string() }) satisfies z.ZodType<MessageNames>;

const inboundMessage = z.strictObject({
  source: z.string().min(1),
  channelId: z.string().min(1),
  authorId: z.string(),
  authorRoleIds: z.array(z.string()),
  messageId: z.string().min(1),
  text: z.string(),
  attachments: z.array(attachment).exactOptional(),
  place: place.exactOptional(),
  names: names.exactOptional(),
}) satisfies z.ZodType<InboundMessage>;

/** The message an inbox entry holds, or `undefined` when the entry is not one this code wrote. */
export function decodeInbound(stored: unknown): InboundMessage | undefined {
  const parsed = inboundMessage.safeParse(stored);
  return parsed.success ? parsed.data : undefined;
}
