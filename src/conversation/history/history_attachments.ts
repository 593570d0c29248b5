import type { HistoryAttachment } from '../../turn_state/history_store.js';
import { assertNever } from '../../core/assert_never.js';
import { ATTACHMENT_SKIP_REASONS, isImageMediaType, type AttachmentSkipReason, type MessageAttachment } from './message_attachment.js';

/** What an image kept in history counts against `chat.history_max_chars`, whatever its size. */
export const IMAGE_HISTORY_CHARS = 1_000;

/**
 * What an attachment kept in history counts against `chat.history_max_chars`: a text file its
 * characters, an image {@link IMAGE_HISTORY_CHARS}, a file that was left out nothing.
 */
export function attachmentChars(attachment: HistoryAttachment): number {
  switch (attachment.kind) {
    case 'text':
      return [...attachment.text].length;
    case 'image':
      return IMAGE_HISTORY_CHARS;
    case 'skipped':
      return 0;
    default:
      return assertNever(attachment);
  }
}

/** An attachment read back from history, as a turn's user message carries it; an image of a format no longer accepted is left out as unsupported. */
export function fromHistory(attachment: HistoryAttachment): MessageAttachment {
  switch (attachment.kind) {
    case 'text':
      return attachment;
    case 'image':
      if (isImageMediaType(attachment.mediaType)) return { ...attachment, mediaType: attachment.mediaType };
      return { kind: 'skipped', name: attachment.name, reason: 'unsupported_type' };
    case 'skipped': {
      const reason = isSkipReason(attachment.reason) ? attachment.reason : 'unsupported_type';
      return { kind: 'skipped', name: attachment.name, reason, ...(attachment.limitBytes === undefined ? {} : { limitBytes: attachment.limitBytes }) };
    }
    default:
      return assertNever(attachment);
  }
}

function isSkipReason(reason: string): reason is AttachmentSkipReason {
  return (ATTACHMENT_SKIP_REASONS as readonly string[]).includes(reason);
}
