import { assertNever } from '../../../src/core/assert_never.js';
import type { ModalJson } from './components.js';
import type { MessageJson } from './fixtures.js';
import { contentTooLong, invalidForm, isContentTooLong, noContent, notFound, type HttpReply } from './http.js';
import type { AnswerType, CallbackKind, InteractionAnswer, InteractionRecord } from './interaction_log.js';
import { applyEdit, botMessage, componentsOf, unknownMessage, type MessageBody } from './messages.js';
import type { RestState } from './rest.js';

/** The message flag of a response only its user sees. */
const EPHEMERAL = 64;

/** The interaction callback types the fake answers, by number. */
const CALLBACK_KINDS: Readonly<Record<number, CallbackKind>> = { 4: 'reply', 5: 'deferred_reply', 6: 'deferred_update', 7: 'update', 9: 'modal' };

/** The body of `POST /interactions/:id/:token/callback`. */
interface CallbackBody {
  readonly type?: unknown;
  readonly data?: unknown;
}

/** A callback's `data`: a message's fields, or a modal's custom id, title and components. */
interface CallbackData extends MessageBody {
  readonly custom_id?: unknown;
  readonly title?: unknown;
}

/** What a callback changed: the answer to record and the message it created or updated, if any. */
interface Applied {
  readonly answer: InteractionAnswer;
  readonly message: MessageJson | undefined;
}

const unknownInteraction = (): HttpReply => notFound('Unknown interaction', 10062);
const unknownWebhook = (): HttpReply => notFound('Unknown Webhook', 10015);
const alreadyAcknowledged = (): HttpReply => ({ status: 400, body: { message: 'Interaction has already been acknowledged.', code: 40060 } });

function objectOf<T>(raw: unknown): T {
  return (typeof raw === 'object' && raw !== null ? raw : {}) as T;
}

function isEphemeral(data: MessageBody): boolean {
  return typeof data.flags === 'number' && (data.flags & EPHEMERAL) !== 0;
}

function answerOf(type: AnswerType, ephemeral: boolean, data: MessageBody): InteractionAnswer {
  return { type, ephemeral, content: typeof data.content === 'string' ? data.content : undefined, components: componentsOf(data) };
}

/** The stored message whose button the interaction came from: 10008 once it is deleted, 400 for an interaction that has none. */
function componentMessage(state: RestState, interaction: InteractionRecord): MessageJson | HttpReply {
  if (interaction.messageId === undefined) return invalidForm('type', 'Only an interaction on a message can update it.');
  return state.messages.get(interaction.messageId) ?? unknownMessage();
}

function applyCallback(state: RestState, interaction: InteractionRecord, kind: CallbackKind, data: CallbackData): Applied | HttpReply {
  switch (kind) {
    case 'reply':
    case 'deferred_reply': {
      const given = kind === 'reply' ? data : {};
      if (isContentTooLong(given.content)) return contentTooLong();
      const ephemeral = isEphemeral(data);
      interaction.original = botMessage(state, interaction.use.channelId, given, ephemeral ? EPHEMERAL : 0);
      return { answer: answerOf(kind, ephemeral, given), message: interaction.original };
    }
    case 'deferred_update':
    case 'update': {
      const given = kind === 'update' ? data : {};
      const message = componentMessage(state, interaction);
      if ('status' in message) return message;
      if (isContentTooLong(given.content)) return contentTooLong();
      applyEdit(message, given);
      return { answer: answerOf(kind, false, given), message };
    }
    case 'modal': {
      if (interaction.type === 5) return invalidForm('type', 'A modal submission cannot be answered with a modal.');
      if (typeof data.custom_id !== 'string' || typeof data.title !== 'string') return invalidForm('data', 'A modal needs a custom_id and a title.');
      const modal: ModalJson = { custom_id: data.custom_id, title: data.title, components: componentsOf(data) ?? [] };
      return { answer: { type: kind, ephemeral: false, content: undefined, components: modal.components, modal }, message: undefined };
    }
    default:
      return assertNever(kind);
  }
}

/** The InteractionCallbackResponse that `with_response=true` asks for: the message a reply created and the one a reply or update shows. */
function callbackResponse(interaction: InteractionRecord, type: number, applied: Applied): unknown {
  const kind = applied.answer.type;
  const created = kind === 'reply' || kind === 'deferred_reply' ? applied.message : undefined;
  const shown = kind === 'reply' || kind === 'update' ? applied.message : undefined;
  return {
    interaction: {
      id: interaction.id,
      type: interaction.type,
      ...(created === undefined ? {} : { response_message_id: created.id, response_message_loading: kind === 'deferred_reply', response_message_ephemeral: applied.answer.ephemeral }),
    },
    resource: { type, ...(shown === undefined ? {} : { message: shown }) },
  };
}

/**
 * `POST /interactions/:id/:token/callback`: acknowledges an interaction the fake dispatched once.
 * A reply (4) or deferred reply (5) becomes its own response, kept out of the channel; an update
 * (7) edits the button's message and a deferred update (6) leaves it for `@original`; a modal (9)
 * waits for `FakeDiscord.submitModal`. A second callback is refused with 40060, an unknown
 * interaction with 10062. Answers 204, or the callback response with `with_response=true`.
 */
export function interactionCallback(state: RestState, id: string, token: string, query: URLSearchParams, raw: unknown): HttpReply {
  const interaction = state.interactions.byId(id);
  if (interaction?.token !== token) return unknownInteraction();
  const body = objectOf<CallbackBody>(raw);
  const kind = typeof body.type === 'number' ? CALLBACK_KINDS[body.type] : undefined;
  if (kind === undefined) return invalidForm('type', `Value ${JSON.stringify(body.type)} is not a valid interaction callback type.`);
  if (interaction.acknowledged !== undefined) return alreadyAcknowledged();
  const applied = applyCallback(state, interaction, kind, objectOf<CallbackData>(body.data));
  if ('status' in applied) return applied;
  interaction.acknowledged = kind;
  state.interactions.answered(interaction, applied.answer);
  return query.get('with_response') === 'true' ? { status: 200, body: callbackResponse(interaction, body.type as number, applied) } : noContent;
}

/** The interaction a webhook path's application id and token address, if the fake dispatched it. */
function webhookInteraction(state: RestState, applicationId: string, token: string): InteractionRecord | undefined {
  return applicationId === state.world.applicationId ? state.interactions.byToken(token) : undefined;
}

/** The message `@original` is: the interaction's own response after a (deferred) reply, the button's message after a (deferred) update. */
function originalOf(state: RestState, interaction: InteractionRecord): MessageJson | undefined {
  const kind = interaction.acknowledged;
  if (kind === undefined) return undefined;
  switch (kind) {
    case 'reply':
    case 'deferred_reply':
      return interaction.original;
    case 'deferred_update':
    case 'update':
      return interaction.messageId === undefined ? undefined : state.messages.get(interaction.messageId);
    case 'modal':
      return undefined;
    default:
      return assertNever(kind);
  }
}

/**
 * `PATCH /webhooks/:appId/:token/messages/@original`: edits the interaction's response or the
 * button's message (see `originalOf`); 10008 before a callback that made one, 10015 for a token the
 * fake never dispatched.
 */
export function editOriginal(state: RestState, applicationId: string, token: string, body: MessageBody): HttpReply {
  const interaction = webhookInteraction(state, applicationId, token);
  if (interaction === undefined) return unknownWebhook();
  const message = originalOf(state, interaction);
  if (message === undefined) return unknownMessage();
  if (isContentTooLong(body.content)) return contentTooLong();
  applyEdit(message, body);
  state.interactions.answered(interaction, answerOf('edit_original', (message.flags & EPHEMERAL) !== 0, body));
  return { status: 200, body: message };
}

/** `POST /webhooks/:appId/:token`: a follow-up message in the interaction's channel (ephemeral with flag 64), kept out of the channel like the response. */
export function followUp(state: RestState, applicationId: string, token: string, body: MessageBody): HttpReply {
  const interaction = webhookInteraction(state, applicationId, token);
  if (interaction === undefined) return unknownWebhook();
  if (isContentTooLong(body.content)) return contentTooLong();
  const ephemeral = isEphemeral(body);
  const message = botMessage(state, interaction.use.channelId, body, ephemeral ? EPHEMERAL : 0);
  state.interactions.answered(interaction, answerOf('followup', ephemeral, body));
  return { status: 200, body: message };
}
