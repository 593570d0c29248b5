import { EDITED_TIMESTAMP, member, messagePayload, type MessageJson, type MessageReferenceJson } from './fixtures.js';
import { guildOf } from './world.js';
import { contentTooLong, invalidForm, isContentTooLong, noContent, notFound, type HttpReply } from './http.js';
import type { RestState } from './rest.js';

/** The message-create or message-edit fields the fake reads from a request body. */
export interface MessageBody {
  readonly content?: unknown;
  readonly message_reference?: unknown;
  readonly nonce?: unknown;
  readonly enforce_nonce?: unknown;
  readonly components?: unknown;
  readonly flags?: unknown;
}

interface ReferenceBody {
  readonly message_id?: unknown;
  readonly channel_id?: unknown;
}

/** Discord's 404 for a message it does not have. */
export const unknownMessage = (): HttpReply => notFound('Unknown Message', 10008);

/** A channel's stored messages, oldest first (by snowflake). */
export function channelMessages(messages: ReadonlyMap<string, MessageJson>, channelId: string): MessageJson[] {
  return [...messages.values()].filter((message) => message.channel_id === channelId).sort((x, y) => (BigInt(x.id) < BigInt(y.id) ? -1 : 1));
}

/** The reference Discord stores for a reply: the body's message id, filled in with its channel and guild. */
function reference(state: RestState, channelId: string, raw: unknown): MessageReferenceJson | undefined {
  const body = typeof raw === 'object' && raw !== null ? (raw as ReferenceBody) : {};
  if (typeof body.message_id !== 'string') return undefined;
  const referencedChannel = typeof body.channel_id === 'string' ? body.channel_id : channelId;
  const guildId = guildOf(state.world, referencedChannel);
  return {
    type: 0,
    message_id: body.message_id,
    channel_id: referencedChannel,
    ...(guildId === undefined ? {} : { guild_id: guildId }),
  };
}

function nonceOf(body: MessageBody): string | number | undefined {
  return typeof body.nonce === 'string' || typeof body.nonce === 'number' ? body.nonce : undefined;
}

/** The components a body sets, when it gives them: `[]` removes a message's components, none leaves them. */
export function componentsOf(body: MessageBody): readonly unknown[] | undefined {
  return Array.isArray(body.components) ? (body.components as unknown[]) : undefined;
}

/** A new bot message in `channelId` from a create body (content, reply reference, nonce, components), with `flags`; not stored. */
export function botMessage(state: RestState, channelId: string, body: MessageBody, flags = 0): MessageJson {
  const { world } = state;
  const guildId = guildOf(world, channelId);
  const messageReference = reference(state, channelId, body.message_reference);
  const nonce = nonceOf(body);
  const components = componentsOf(body);
  return messagePayload({
    id: state.ids.next(),
    channelId,
    guildId,
    author: world.bot,
    member: guildId === undefined ? undefined : member([]),
    content: typeof body.content === 'string' ? body.content : '',
    mentions: [],
    flags,
    ...(messageReference === undefined ? {} : { messageReference }),
    ...(nonce === undefined ? {} : { nonce }),
    ...(components === undefined ? {} : { components }),
  });
}

/** Applies an edit body to a message as Discord does: the content and components it gives replace the old ones, what it leaves out stays. */
export function applyEdit(message: MessageJson, body: MessageBody): void {
  const components = componentsOf(body);
  if (typeof body.content !== 'string' && components === undefined) return;
  if (typeof body.content === 'string') message.content = body.content;
  if (components !== undefined) message.components = components;
  message.edited_timestamp = EDITED_TIMESTAMP;
}

/**
 * `POST /channels/:id/messages`: stores and returns a bot message. With `enforce_nonce`, a nonce the
 * bot already used in this channel returns that earlier message and creates nothing. Content over
 * 2,000 characters is refused with 400 (50035 BASE_TYPE_MAX_LENGTH), and a reply to a message id
 * that is not a snowflake with 400 (50035), as Discord does; neither creates anything.
 */
export function createMessage(state: RestState, channelId: string, body: MessageBody = {}): HttpReply {
  if (isContentTooLong(body.content)) return contentTooLong();
  const referenced = (body.message_reference as ReferenceBody | undefined)?.message_id;
  if (typeof referenced === 'string' && !/^\d+$/.test(referenced)) return invalidForm('message_reference', `Value "${referenced}" is not snowflake.`);
  const nonce = nonceOf(body);
  if (body.enforce_nonce === true && nonce !== undefined) {
    const earlier = channelMessages(state.messages, channelId).find((m) => m.author.id === state.world.bot.id && m.nonce === nonce);
    if (earlier !== undefined) return { status: 200, body: earlier };
  }
  const message = botMessage(state, channelId, body);
  state.messages.set(message.id, message);
  return { status: 200, body: message };
}

function snowflakeParam(query: URLSearchParams, name: string): bigint | undefined | HttpReply {
  const value = query.get(name);
  if (value === null) return undefined;
  return /^\d+$/.test(value) ? BigInt(value) : invalidForm(name, `Value "${value}" is not snowflake.`);
}

/**
 * `GET /channels/:id/messages`: newest first, at most `limit` (1–100, default 50). With `after`,
 * the messages right after that id; otherwise the newest ones (before `before`, when given).
 */
export function listMessages(state: RestState, channelId: string, query: URLSearchParams): HttpReply {
  const limit = Number(query.get('limit') ?? '50');
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return invalidForm('limit', 'Int value should be between 1 and 100.');
  const after = snowflakeParam(query, 'after');
  const before = snowflakeParam(query, 'before');
  if (typeof after === 'object') return after;
  if (typeof before === 'object') return before;
  const inRange = channelMessages(state.messages, channelId).filter((message) => (after === undefined || BigInt(message.id) > after) && (before === undefined || BigInt(message.id) < before));
  const page = after === undefined ? inRange.slice(-limit) : inRange.slice(0, limit);
  return { status: 200, body: page.reverse() };
}

/**
 * `GET`, `PATCH` or `DELETE /channels/:id/messages/:id`; 10008 for a message not (or no longer) in
 * that channel; an edit to content over 2,000 characters is refused with 400 and changes nothing.
 */
export function messageById(state: RestState, method: string, channelId: string, id: string, body: MessageBody = {}): HttpReply {
  const message = state.messages.get(id);
  if (message?.channel_id !== channelId) return unknownMessage();
  if (method === 'PATCH' && isContentTooLong(body.content)) return contentTooLong();
  if (method === 'DELETE') {
    state.messages.delete(id);
    return noContent;
  }
  if (method === 'PATCH') applyEdit(message, body);
  return { status: 200, body: message };
}
