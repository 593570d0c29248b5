import type { ApprovalAsk, BotEvent, FinalReply, ReplySink } from '../../src/conversation/transport.js';

/** A final reply as a {@link recordingSink} records it, beside the events, in the order they came. */
export interface DeliveredReply {
  readonly type: 'message';
  readonly kind: 'reply';
  readonly channelId: string;
  readonly inReplyTo: string;
  readonly turn: string;
  readonly text: string;
  /** The model that wrote it and the note below it, when the reply carries them. */
  readonly model?: string;
  readonly note?: string;
}

/** A request for approval as a {@link recordingSink} records it; the id it answers with is `asked:<approval id>`. */
export type AskedApproval = { readonly type: 'approval_asked' } & ApprovalAsk;

/** What a transport was told: events, requests for approval and delivered replies, in order. */
export type SeenEvent = BotEvent | AskedApproval | DeliveredReply;

/** A sink that records everything it is told into `events`; each reply is delivered at once, as one part. */
export function recordingSink(events: SeenEvent[], onEvent?: (event: SeenEvent) => void): ReplySink {
  const see = (event: SeenEvent): void => {
    events.push(event);
    onEvent?.(event);
  };
  return {
    post: see,
    askApproval(ask) {
      see({ type: 'approval_asked', ...ask });
      return Promise.resolve(`asked:${ask.approvalId}`);
    },
    deliver(reply: FinalReply) {
      const { model, note } = reply;
      see({
        type: 'message',
        kind: 'reply',
        channelId: reply.channelId,
        inReplyTo: reply.inReplyTo,
        turn: reply.turn,
        text: reply.text,
        ...(model === undefined ? {} : { model }),
        ...(note === undefined ? {} : { note }),
      });
      return Promise.resolve(1);
    },
  };
}
