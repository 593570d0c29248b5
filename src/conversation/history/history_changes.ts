import { assertNever } from '../../core/assert_never.js';
import type { Logger } from '../../core/logger.js';
import type { HistoryStore } from '../../turn_state/history_store.js';
import { channelKey, type MessageChange } from '../transport.js';

/**
 * Makes the channel's history follow an edit or a deletion of a user's message (DESIGN §1): an
 * edit sets its entry's text, a deletion removes its entry; either bumps the channel's revision,
 * so an automatic resume waiting there stands down. A message history never had changes nothing.
 * A failure is logged: the history keeps the message as it was.
 */
export async function followMessageChange(change: MessageChange, history: HistoryStore, logger: Logger): Promise<void> {
  const channel = channelKey(change);
  try {
    switch (change.kind) {
      case 'edited':
        if (await history.edit(channel, change.messageId, change.text)) logger.info({ channel: change.channelId, message: change.messageId }, 'history follows an edited message');
        return;
      case 'deleted': {
        const removed = await history.remove(channel, change.messageIds);
        if (removed > 0) logger.info({ channel: change.channelId, messages: change.messageIds, removed }, 'history follows deleted messages');
        return;
      }
      default:
        return assertNever(change);
    }
  } catch (error) {
    logger.error({ err: error, channel: change.channelId }, `the history could not follow a message's ${change.kind === 'edited' ? 'edit' : 'deletion'}: it keeps the message as it was`);
  }
}
