import type { Logger } from '../../core/logger.js';
import type { PendingReply, ReplyAuthor, ReplyProgress } from '../../turn_state/reply_types.js';
import type { ReplyStore } from '../../turn_state/turn_store.js';
import { isReplyUndeliverable, type FinalReply, type ReplySink, type ServedChannels } from '../transport.js';

/** Where a final reply's delivery ended, for the caller's log and tests. */
export type DeliveryResult = 'delivered' | 'pending' | 'abandoned';

/**
 * Delivers a completed turn's final reply through the transport and records each confirmed
 * part before the last with the turn, then the whole reply delivered (one write for a reply of
 * one part), so that a reply is never lost and never posted twice: one the transport
 * did not confirm stays pending and is posted after the next restart, from the first part not
 * yet confirmed; one the transport refused for good is abandoned. Never throws.
 */
export async function deliverReply(store: ReplyStore, sink: ReplySink, reply: FinalReply, logger: Logger): Promise<DeliveryResult> {
  const record = async (progress: ReplyProgress): Promise<void> => {
    try {
      await store.recordReplyDelivery(reply.turn, progress);
    } catch (error) {
      logger.error({ err: error, turn: reply.turn, progress: progress.kind }, 'could not record the delivery of a reply');
    }
  };
  let partsDelivered: number;
  try {
    partsDelivered = await sink.deliver(reply, (confirmed) => record({ kind: 'parts_delivered', partsDelivered: confirmed }));
  } catch (error) {
    if (isReplyUndeliverable(error)) {
      logger.error({ err: error, turn: reply.turn, channel: reply.channelId }, 'the reply cannot be delivered: given up');
      await record({ kind: 'abandoned', reason: error.reason });
      return 'abandoned';
    }
    logger.error({ err: error, turn: reply.turn, channel: reply.channelId }, 'the reply is not delivered yet: it will be posted after the next restart');
    return 'pending';
  }
  await record({ kind: 'delivered', partsDelivered });
  return 'delivered';
}

/** Where pending replies go: the channels this process serves, through `sink`, a fallback's reply with `fallbackNote` (`llm.fallback_note`) below it. */
export interface PendingDelivery {
  readonly channels: ServedChannels;
  readonly sink: ReplySink;
  readonly fallbackNote: string;
}

/**
 * What a reply says of the model that wrote it: its name, and below a fallback's reply
 * `fallbackNote` with `<model>` replaced (none when the note is empty, or the model is not known).
 */
export function replyAuthorship(writtenBy: ReplyAuthor | undefined, fallbackNote: string): Pick<FinalReply, 'model' | 'note'> {
  if (writtenBy === undefined) return {};
  const note = fallbackNote.replaceAll('<model>', writtenBy.model);
  return writtenBy.fallback && note !== '' ? { model: writtenBy.model, note } : { model: writtenBy.model };
}

/** A reply's marks with one more line below it (`extra`), after the notes it already has. */
export function replyNotes(marks: Pick<FinalReply, 'model' | 'note'>, extra: string | undefined): Pick<FinalReply, 'model' | 'note'> {
  if (extra === undefined) return marks;
  return { ...marks, note: marks.note === undefined ? extra : `${marks.note}\n${extra}` };
}

/**
 * Posts the replies that a previous process stored but never saw confirmed (read at start-up,
 * before any new turn could add one) in the channels this process serves, each from its first
 * unconfirmed part and marked with the model that wrote it as it would have been; the others'
 * stay pending for the process that serves them (DESIGN §7.7).
 */
export async function deliverPendingReplies(store: ReplyStore, pending: readonly PendingReply[], to: PendingDelivery, logger: Logger): Promise<DeliveryResult[]> {
  const { channels, sink, fallbackNote } = to;
  const ofSource = pending.filter((reply) => reply.turn.identity.source === channels.source);
  const served = await Promise.all(ofSource.map((reply) => channels.serves(reply.turn.identity.channelId)));
  const ours = ofSource.filter((_reply, index) => served[index] === true);
  if (ours.length > 0) logger.info({ replies: ours.length }, 'posting replies whose delivery was not confirmed before the restart');
  return Promise.all(
    ours.map(({ turn, text, partsDelivered, writtenBy }) =>
      deliverReply(
        store,
        sink,
        { channelId: turn.identity.channelId, inReplyTo: turn.identity.messageId, turn: turn.turnId, text, partsDelivered, redelivery: true, ...replyAuthorship(writtenBy, fallbackNote) },
        logger,
      ),
    ),
  );
}
