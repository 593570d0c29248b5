import { assertNever } from '../core/assert_never.js';
import type { TurnStatus } from '../turn_state/turn_types.js';
import type { InboundMessage, NoticeKind, ReplySink } from './transport.js';

/** Posts a notice in `message`'s channel, as an answer to it. */
export function postNotice(sink: ReplySink, message: InboundMessage, turn: string | null, notice: NoticeKind, text: string): void {
  sink.post({ type: 'message', channelId: message.channelId, inReplyTo: message.messageId, turn, kind: 'notice', notice, text });
}

/** The notice a turn that ended without a reply is told with. */
export function noticeFor(status: TurnStatus): NoticeKind {
  switch (status) {
    case 'SUSPENDED':
      return 'suspended';
    case 'TERMINAL_CANCELLED':
      return 'cancelled';
    case 'AWAITING_RESOLUTION':
    case 'TERMINAL_REJECTED':
      return 'manual_resolution';
    case 'TERMINAL_EXPIRED':
      return 'expired';
    case 'ACTIVE':
    case 'TERMINAL_COMPLETED':
    case 'TERMINAL_FAILED':
      return 'failed';
    default:
      return assertNever(status);
  }
}

/** The conversation a message belongs to: one per channel of each transport. */
export function channelKey(message: Pick<InboundMessage, 'source' | 'channelId'>): string {
  return `${message.source}:${message.channelId}`;
}
