import { NOTICE_MARK } from '../../../src/discord/mention_policy.js';
import type { BotMessageBody } from '../discord_bot.js';
import type { FakeDiscord, RecordedRequest } from '../fake_discord/server.js';
import { replyEnd, tokenIn } from '../fake_llm/tool_conversation.js';

/** What a waiting draft says; it is neither a reply nor a notice. */
const WAITING = `${NOTICE_MARK}waiting for the model`;
/** A notice that says the request is kept for later (suspended, still overloaded, continuing): the reply may still come. */
const SAVED = /\bsaved\b/;

/** One member's message and what the channel showed of its answer, on the local Discord's clock (`performance.now()`, ms). */
export interface TurnRecord {
  readonly token: string;
  readonly channelId: string;
  readonly sentAt: number;
  messageId: string | undefined;
  /** The first post or edit that showed some of the reply's text. */
  firstTextAt: number | undefined;
  /** The first post or edit that showed the whole reply. */
  finalAt: number | undefined;
  /** The first notice (not a waiting draft) that answered the message. */
  noticeAt: number | undefined;
  /** Whether a notice said the request is saved (the turn was suspended and may resume by itself). */
  saved: boolean;
  /** A notice that ends the matter without a reply (failed, expired, busy …). */
  endedByNotice: boolean;
}

/** Whether the member has what they wait for: the whole reply, or a notice that no reply is coming. */
export const settled = (record: TurnRecord): boolean => record.finalAt !== undefined || record.endedByNotice;

/**
 * Every member message sent under load and what the bot showed in answer, read from the local
 * Discord's requests as they arrive (only those it answered 200): reply text is matched by the
 * turn token it carries, a notice by the message it replies to.
 */
export class TurnRecords {
  readonly turns: TurnRecord[] = [];
  readonly #byToken = new Map<string, TurnRecord>();
  readonly #byMessage = new Map<string, TurnRecord>();
  readonly #waiters = new Map<TurnRecord, () => void>();

  constructor(private readonly discord: FakeDiscord) {
    discord.onRequest((request) => this.#observe(request));
  }

  /** Records a message about to be sent in `channelId` for turn `token`. */
  open(token: string, channelId: string, sentAt: number): TurnRecord {
    const record: TurnRecord = { token, channelId, sentAt, messageId: undefined, firstTextAt: undefined, finalAt: undefined, noticeAt: undefined, saved: false, endedByNotice: false };
    this.turns.push(record);
    this.#byToken.set(token, record);
    return record;
  }

  /** Notes the id the local Discord gave the message. */
  sent(record: TurnRecord, messageId: string): void {
    record.messageId = messageId;
    this.#byMessage.set(messageId, record);
  }

  /** Resolves once the record is {@link settled}, or when `signal` aborts. */
  whenSettled(record: TurnRecord, signal: AbortSignal): Promise<void> {
    if (settled(record) || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.#waiters.delete(record);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.#waiters.set(record, done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  #observe(request: RecordedRequest): void {
    if (request.status !== 200) return;
    const [, channels, channelId, messages, messageId] = request.path.split('/');
    if (channels !== 'channels' || messages !== 'messages' || channelId === undefined) return;
    if (!(request.method === 'POST' && messageId === undefined) && !(request.method === 'PATCH' && messageId !== undefined)) return;
    const body = request.body as BotMessageBody | undefined;
    const content = typeof body?.content === 'string' ? body.content : '';
    if (content.startsWith(WAITING)) return;
    if (content.startsWith(NOTICE_MARK)) {
      const answered = messageId === undefined ? body?.message_reference?.message_id : this.discord.message(messageId)?.message_reference?.message_id;
      const record = answered === undefined ? undefined : this.#byMessage.get(answered);
      if (record === undefined) return;
      record.noticeAt ??= request.at;
      if (SAVED.test(content)) record.saved = true;
      else record.endedByNotice = true;
      this.#wake(record);
      return;
    }
    const token = tokenIn(content);
    const record = token === undefined ? undefined : this.#byToken.get(token);
    if (record === undefined || token === undefined) return;
    record.firstTextAt ??= request.at;
    if (content.includes(replyEnd(token))) record.finalAt ??= request.at;
    this.#wake(record);
  }

  #wake(record: TurnRecord): void {
    if (settled(record)) this.#waiters.get(record)?.();
  }
}
