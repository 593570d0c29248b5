import { z } from 'zod';
import { ATTACHMENT_SKIP_REASONS, IMAGE_MEDIA_TYPES, type MessageAttachment } from './message_attachment.js';
import type { InboundMessage, MessagePlace } from './transport.js';

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

const inboundMessage = z.strictObject({
  source: z.string().min(1),
  channelId: z.string().min(1),
  authorId: z.string(),
  authorRoleIds: z.array(z.string()),
  messageId: z.string().min(1),
  text: z.string(),
  attachments: z.array(attachment).exactOptional(),
  place: place.exactOptional(),
}) satisfies z.ZodType<InboundMessage>;

/** The message an inbox entry holds, or `undefined` when the entry is not one this code wrote. */
export function decodeInbound(stored: unknown): InboundMessage | undefined {
  const parsed = inboundMessage.safeParse(stored);
  return parsed.success ? parsed.data : undefined;
}
