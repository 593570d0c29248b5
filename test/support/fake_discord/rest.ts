import { member, messagePayload, type MessageJson, type SnowflakeCounter, type World } from './fixtures.js';

/** A REST answer: a status and a JSON body (none for 204). */
export interface RestReply {
  readonly status: number;
  readonly body?: unknown;
}

/** What the REST routes read and change. */
export interface RestState {
  readonly world: World;
  readonly ids: SnowflakeCounter;
  /** Every message the fake knows, by id; deleting one removes it. */
  readonly messages: Map<string, MessageJson>;
  readonly gatewayUrl: () => string;
}

/** The message-create or message-edit fields the fake reads from a request body. */
interface MessageBody {
  readonly content?: unknown;
  readonly message_reference?: unknown;
}

interface CommandBody {
  readonly name?: unknown;
}

const noContent: RestReply = { status: 204 };

/** Discord's error body for an unknown route or resource. */
export function notFound(message = '404: Not Found', code = 0): RestReply {
  return { status: 404, body: { message, code } };
}

const unknownMessage = (): RestReply => notFound('Unknown Message', 10008);

/**
 * Answers one REST request. `segments` is the path after `/api/v10`, split on `/`;
 * `body` is the parsed JSON body (or undefined).
 */
export function route(state: RestState, method: string, segments: readonly string[], body: unknown): RestReply {
  const [first, a, b, c, d] = segments;
  const key = `${method} ${segments.length} ${first ?? ''}`;
  switch (key) {
    case 'GET 2 gateway':
      return a === 'bot' ? { status: 200, body: gatewayBot(state.gatewayUrl()) } : notFound();
    case 'POST 3 channels':
      if (b === 'messages' && a !== undefined) return createMessage(state, a, body as MessageBody);
      return b === 'typing' ? noContent : notFound();
    case 'GET 4 channels':
    case 'PATCH 4 channels':
    case 'DELETE 4 channels':
      return b === 'messages' && c !== undefined ? messageById(state, method, c, body as MessageBody) : notFound();
    case 'PUT 3 applications':
    case 'PUT 5 applications':
      return (b === 'commands' || d === 'commands') && a !== undefined ? echoCommands(state, a, body) : notFound();
    case 'POST 4 interactions':
      return c === 'callback' ? noContent : notFound();
    case 'PATCH 5 webhooks':
      return c === 'messages' && d === '@original' ? interactionMessage(state, body as MessageBody) : notFound();
    case 'POST 3 webhooks':
      return interactionMessage(state, body as MessageBody);
    default:
      return notFound();
  }
}

function gatewayBot(url: string): unknown {
  return {
    url,
    shards: 1,
    session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
  };
}

function botMessage(state: RestState, channelId: string, body: MessageBody): MessageJson {
  const { world } = state;
  return messagePayload({
    id: state.ids.next(),
    channelId,
    guildId: channelId === world.channelId ? world.guildId : undefined,
    author: world.bot,
    member: channelId === world.channelId ? member([]) : undefined,
    content: typeof body.content === 'string' ? body.content : '',
    mentions: [],
    ...(body.message_reference === undefined ? {} : { messageReference: body.message_reference }),
  });
}

function createMessage(state: RestState, channelId: string, body: MessageBody): RestReply {
  const message = botMessage(state, channelId, body);
  state.messages.set(message.id, message);
  return { status: 200, body: message };
}

function messageById(state: RestState, method: string, id: string, body: MessageBody): RestReply {
  const message = state.messages.get(id);
  if (message === undefined) return unknownMessage();
  if (method === 'DELETE') {
    state.messages.delete(id);
    return noContent;
  }
  if (method === 'PATCH' && typeof body.content === 'string') {
    message.content = body.content;
    message.edited_timestamp = message.timestamp;
  }
  return { status: 200, body: message };
}

function echoCommands(state: RestState, applicationId: string, body: unknown): RestReply {
  const commands = Array.isArray(body) ? (body as CommandBody[]) : [];
  return {
    status: 200,
    body: commands.map((command) => ({
      ...command,
      id: state.ids.next(),
      application_id: applicationId,
      version: state.ids.next(),
      type: 1,
      default_member_permissions: null,
    })),
  };
}

function interactionMessage(state: RestState, body: MessageBody): RestReply {
  return { status: 200, body: botMessage(state, state.world.channelId, body) };
}
