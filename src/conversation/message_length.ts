import type { ConversationDeps } from './conversation_deps.js';
import { postNotice } from './notices.js';
import { tooLongText } from './notices/texts.js';
import type { InboundMessage } from './transport.js';

/**
 * The bound on what one message may carry (`chat.max_message_chars`), checked before anything
 * of it is kept or sent: a longer message is answered `rejected`, naming the limit, and goes no
 * further. Its attachments do not count; they have their own limits.
 */
export function rejectTooLong(message: InboundMessage, deps: Pick<ConversationDeps, 'config' | 'sink' | 'logger'>): boolean {
  const limit = deps.config.chat.max_message_chars;
  if (message.text.length <= limit) return false;
  deps.logger.info({ channel: message.channelId, message: message.messageId, chars: message.text.length, limit }, 'message rejected: longer than chat.max_message_chars');
  postNotice(deps.sink, message, null, 'rejected', tooLongText(limit));
  return true;
}
