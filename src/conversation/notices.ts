import type { InboundMessage, NoticeKind, ReplySink } from './transport.js';

/** Posts a notice in `message`'s channel, as an answer to it. */
export function postNotice(sink: ReplySink, message: InboundMessage, turn: string | null, notice: NoticeKind, text: string): void {
  sink.post({ type: 'message', channelId: message.channelId, inReplyTo: message.messageId, turn, kind: 'notice', notice, text });
}

/** The conversation a message belongs to: one per channel of each transport. */
export function channelKey(message: Pick<InboundMessage, 'source' | 'channelId'>): string {
  return `${message.source}:${message.channelId}`;
}
