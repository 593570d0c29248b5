import { assertNever } from '../../core/assert_never.js';
import type { SecretValues, StreamRedactor } from '../../core/secret_values.js';
import type { BotEvent, ReplySink } from '../transport.js';

/** A turn's streamed draft on its way out: where it goes, and what of it is held back. */
interface Draft {
  readonly channelId: string;
  readonly inReplyTo: string;
  readonly stream: StreamRedactor;
}

/**
 * `sink`, showing none of the configured `secrets` (DESIGN §7.6, for what is posted as for what is
 * stored): a model that repeats a key from a tool's answer posts `[REDACTED]`, as the stored
 * reply says, so a reply posted again after a restart reads the same. Notices, waits, updates and
 * replies are redacted whole; a turn's streamed draft piece by piece, holding back an end that
 * could be the start of a secret until the next piece (or the turn's next event) shows it is not.
 * A draft that starts afresh (a retried attempt) drops what it held back.
 */
export function redactingSink(sink: ReplySink, secrets: SecretValues): ReplySink {
  if (secrets.size === 0) return sink;
  const drafts = new Map<string, Draft>();
  /** Shows what the draft of `turn` still holds back, before anything else of that turn is shown. */
  const flush = (turn: string): void => {
    const draft = drafts.get(turn);
    if (draft === undefined) return;
    drafts.delete(turn);
    const rest = draft.stream.end();
    if (rest !== '') sink.post({ type: 'delta', channelId: draft.channelId, inReplyTo: draft.inReplyTo, turn, text: rest });
  };
  const post = (event: BotEvent): void => {
    switch (event.type) {
      case 'delta': {
        let draft = drafts.get(event.turn);
        if (draft === undefined) {
          draft = { channelId: event.channelId, inReplyTo: event.inReplyTo, stream: secrets.stream() };
          drafts.set(event.turn, draft);
        }
        const shown = draft.stream.push(event.text);
        if (shown !== '') sink.post({ ...event, text: shown });
        return;
      }
      case 'waiting':
        drafts.delete(event.turn);
        return sink.post({ ...event, text: secrets.redact(event.text) });
      case 'message':
        if (event.turn !== null) flush(event.turn);
        return sink.post({ ...event, text: secrets.redact(event.text) });
      case 'turn':
        flush(event.turn);
        return sink.post(event);
      case 'notice_update':
      case 'working':
      case 'approval_settled':
        return sink.post({ ...event, text: secrets.redact(event.text) });
      default:
        return assertNever(event);
    }
  };
  return {
    post,
    askApproval(ask) {
      flush(ask.turn);
      return sink.askApproval({ ...ask, text: secrets.redact(ask.text) });
    },
    deliver(reply, confirmed) {
      flush(reply.turn);
      return sink.deliver({ ...reply, text: secrets.redact(reply.text), ...(reply.note === undefined ? {} : { note: secrets.redact(reply.note) }) }, confirmed);
    },
  };
}
