import type { InboundMessage } from '../conversation/transport.js';
import { type AttachmentSkipReason, type ImageMediaType, isImageMediaType, type MessageAttachment } from '../conversation/history/message_attachment.js';
import type { DiscordSettings } from './discord_settings.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { downloadBounded } from './attachment_download.js';
import { assertNever } from '../core/assert_never.js';

/** The fields of a Discord attachment this module reads (a discord.js `Attachment` has them all). */
export interface AttachmentView {
  readonly name: string;
  readonly url: string;
  /** The size Discord declares, in bytes. */
  readonly size: number;
  readonly contentType: string | null;
}

/** What is downloaded, and how much of it. */
export interface AttachmentSettings {
  /** Whether the model sees images; when it does not, images are not downloaded at all. */
  readonly images: boolean;
  readonly maxImageBytes: number;
  readonly maxTextBytes: number;
  readonly timeoutMs: number;
}

export interface AttachmentDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /** Abandons every download (the bot is shutting down). */
  readonly signal: AbortSignal;
}

/** How long one attachment may take to download. */
export const ATTACHMENT_TIMEOUT_MS = 30_000;

/** The settings `llm.vision`, `discord.max_attachment_mb` and `discord.max_text_attachment_kb` give. */
export function attachmentSettings(discord: DiscordSettings, vision: boolean): AttachmentSettings {
  return {
    images: vision,
    maxImageBytes: Math.floor(discord.max_attachment_mb * 1024 * 1024),
    maxTextBytes: Math.floor(discord.max_text_attachment_kb * 1024),
    timeoutMs: ATTACHMENT_TIMEOUT_MS,
  };
}

/**
 * `message` with its Discord attachments downloaded and checked; the message itself, at once, when
 * it has none. A file that cannot be had never loses the message: it becomes a skipped attachment
 * that says why.
 */
export function withAttachments(message: InboundMessage, views: readonly AttachmentView[], settings: AttachmentSettings, deps: AttachmentDeps): InboundMessage | Promise<InboundMessage> {
  if (views.length === 0) return message;
  return prepareAttachments(views, settings, deps).then((attachments) => ({ ...message, attachments }));
}

/**
 * Every attachment as the model may get it, in order, downloaded side by side: a PNG, JPEG, WebP
 * or GIF image up to `maxImageBytes` (its format checked by its first bytes), a text file (by
 * content type `text/*` and the like, or a common text extension) up to `maxTextBytes` that is
 * valid UTF-8; anything else is skipped with its reason. A file whose declared size is over its
 * limit is not requested. Never rejects.
 */
export async function prepareAttachments(views: readonly AttachmentView[], settings: AttachmentSettings, deps: AttachmentDeps): Promise<MessageAttachment[]> {
  return Promise.all(views.map((view) => prepareOne(view, settings, deps)));
}

async function prepareOne(view: AttachmentView, settings: AttachmentSettings, deps: AttachmentDeps): Promise<MessageAttachment> {
  const kind = fileKindOf(view);
  if (kind === 'other') return skipped(view, 'unsupported_type');
  if (kind === 'image' && !settings.images) return skipped(view, 'vision_off');
  const maxBytes = kind === 'image' ? settings.maxImageBytes : settings.maxTextBytes;
  if (view.size > maxBytes) return skipped(view, 'too_large', maxBytes);
  const download = await downloadBounded(view.url, { maxBytes, timeoutMs: settings.timeoutMs }, deps.clock, deps.signal);
  switch (download.kind) {
    case 'too_large':
      return skipped(view, 'too_large', maxBytes);
    case 'failed':
      deps.logger.warn({ attachment: view.name, detail: download.detail }, 'could not download an attachment');
      return skipped(view, 'download_failed');
    case 'complete':
      return kind === 'image' ? asImage(view, download.bytes) : asText(view, download.bytes);
    default:
      return assertNever(download);
  }
}

function asImage(view: AttachmentView, bytes: Uint8Array): MessageAttachment {
  const mediaType = sniffImage(bytes);
  if (mediaType === undefined) return skipped(view, 'unsupported_type');
  return { kind: 'image', name: view.name, mediaType, data: Buffer.from(bytes).toString('base64') };
}

function asText(view: AttachmentView, bytes: Uint8Array): MessageAttachment {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return skipped(view, 'unsupported_type');
  }
  return text.includes('\u0000') ? skipped(view, 'unsupported_type') : { kind: 'text', name: view.name, text };
}

function skipped(view: AttachmentView, reason: AttachmentSkipReason, limitBytes?: number): MessageAttachment {
  return { kind: 'skipped', name: view.name, reason, ...(limitBytes === undefined ? {} : { limitBytes }) };
}

const TEXT_MEDIA_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/javascript',
  'application/x-sh',
  'application/sql',
]);
const TEXT_EXTENSIONS = new Set(
  (
    'txt md markdown rst json jsonl ndjson csv tsv log ini cfg conf toml yml yaml xml html htm css scss sql diff ' +
    'patch ts tsx js jsx mjs cjs py rb go rs java kt kts c h cc cpp hpp cs php sh bash zsh ps1 lua swift r tex srt'
  ).split(' '),
);
const IMAGE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'webp', 'gif']);

/**
 * What a file looks like before it is downloaded. The content type decides, except that a common
 * text extension makes text whatever the type says (`.ts` is often labelled a video), and an
 * image extension counts when the type is missing or generic.
 */
function fileKindOf(view: AttachmentView): 'image' | 'text' | 'other' {
  const type = (view.contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
  const extension = /\.([^./\\]+)$/.exec(view.name)?.[1]?.toLowerCase() ?? '';
  if (isImageMediaType(type)) return 'image';
  if (type.startsWith('text/') || TEXT_MEDIA_TYPES.has(type) || TEXT_EXTENSIONS.has(extension)) return 'text';
  if ((type === '' || type === 'application/octet-stream') && IMAGE_EXTENSIONS.has(extension)) return 'image';
  return 'other';
}

/** The image format the bytes begin with, when it is one the models accept. */
function sniffImage(bytes: Uint8Array): ImageMediaType | undefined {
  const starts = (offset: number, signature: readonly number[]): boolean => signature.every((byte, index) => bytes[offset + index] === byte);
  const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));
  if (starts(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts(0, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts(0, ascii('GIF87a')) || starts(0, ascii('GIF89a'))) return 'image/gif';
  if (starts(0, ascii('RIFF')) && starts(8, ascii('WEBP'))) return 'image/webp';
  return undefined;
}
