import type { ReplySink } from '../conversation/transport.js';
import { interruptedText, type Interruption } from '../conversation/notices/texts.js';
import type { Logger } from '../core/logger.js';
import type { TurnStore } from '../turn_state/turn_store.js';
import type { TurnRecord } from '../turn_state/turn_types.js';

/** Tells a turn's channel once, as a reply to its request, that it was interrupted and how to resume it. */
export function tellInterrupted(sink: ReplySink, turn: TurnRecord, interruption: Interruption): void {
  sink.post({
    type: 'message',
    channelId: turn.identity.channelId,
    inReplyTo: turn.identity.messageId,
    turn: turn.turnId,
    kind: 'notice',
    notice: 'interrupted',
    text: interruptedText(interruption),
  });
}

/**
 * Tells the channels of the turns a sweep of this process reclaimed (DESIGN §7.7), those of this
 * transport's `source` that are still suspended; a turn that cannot be read is logged and skipped.
 */
export async function tellReclaimed(store: TurnStore, sink: ReplySink, source: string, turnIds: readonly string[], logger: Logger): Promise<void> {
  for (const turnId of turnIds) {
    try {
      const turn = await store.getTurn(turnId);
      if (turn?.identity.source === source && turn.status === 'SUSPENDED') tellInterrupted(sink, turn, 'reclaimed');
    } catch (error) {
      logger.error({ err: error, turn: turnId }, 'a reclaimed turn could not be read: its channel is not told');
    }
  }
}
