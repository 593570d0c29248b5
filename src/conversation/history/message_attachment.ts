/**
 * Files that come with a user's message, in a form every transport can hand over: the transport
 * downloads and checks them; the turn engine decides what the model sees (see user_content.ts).
 */

/** The image formats every supported model API accepts. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/**
 * Why an attachment is not given to the model: `too_large` (over the configured limit),
 * `unsupported_type` (neither a supported image nor readable text), `download_failed`, or
 * `vision_off` (an image, and the model is not set up to see images).
 */
export const ATTACHMENT_SKIP_REASONS = ['too_large', 'unsupported_type', 'download_failed', 'vision_off'] as const;
export type AttachmentSkipReason = (typeof ATTACHMENT_SKIP_REASONS)[number];

/** An image, downloaded whole; its format was checked against its first bytes. */
export interface ImageAttachment {
  readonly kind: 'image';
  readonly name: string;
  readonly mediaType: ImageMediaType;
  /** The file's bytes, base64-encoded, as image blocks carry them. */
  readonly data: string;
}

/** A text file, downloaded whole and decoded as UTF-8. */
export interface TextAttachment {
  readonly kind: 'text';
  readonly name: string;
  readonly text: string;
}

/** A file the model does not get, and why; the model is told, so it can tell the user. */
export interface SkippedAttachment {
  readonly kind: 'skipped';
  readonly name: string;
  readonly reason: AttachmentSkipReason;
  /** For `too_large`: the limit the file went over, in bytes. */
  readonly limitBytes?: number;
}

export type MessageAttachment = ImageAttachment | TextAttachment | SkippedAttachment;

/** Whether `mediaType` is one of {@link IMAGE_MEDIA_TYPES}. */
export function isImageMediaType(mediaType: string): mediaType is ImageMediaType {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType);
}
