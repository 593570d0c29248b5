import { editOriginal, followUp, interactionCallback } from './callbacks.js';
import { getChannel, openDm } from './channels.js';
import type { MessageJson, SnowflakeCounter } from './fixtures.js';
import type { World } from './world.js';
import { noContent, notFound, type HttpReply } from './http.js';
import type { InteractionLog } from './interaction_log.js';
import { createMessage, listMessages, messageById, type MessageBody } from './messages.js';

/** What the REST routes read and change. */
export interface RestState {
  readonly world: World;
  readonly ids: SnowflakeCounter;
  /** Every message the fake knows, by id; deleting one removes it. */
  readonly messages: Map<string, MessageJson>;
  /** Every interaction the fake dispatched, with the answers it got. */
  readonly interactions: InteractionLog;
  readonly gatewayUrl: () => string;
  /** The shard count `GET /gateway/bot` recommends. */
  readonly recommendedShards: number;
}

/** One REST request: the path after `/api/v10` split on `/`, the query, and the parsed JSON body. */
export interface RestRequest {
  readonly method: string;
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
  readonly body: unknown;
}

interface CommandBody {
  readonly name?: unknown;
}

/** Answers one REST request, changing the state as Discord would. */
export function route(state: RestState, request: RestRequest): HttpReply {
  const { method, segments, query } = request;
  const [first, a, b, c, d] = segments;
  const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as MessageBody;
  switch (`${method} ${segments.length} ${first ?? ''}`) {
    case 'GET 2 gateway':
      return a === 'bot' ? { status: 200, body: gatewayBot(state.gatewayUrl(), state.recommendedShards) } : notFound();
    case 'GET 2 channels':
      return getChannel(state, a ?? '');
    case 'POST 3 users':
      return a === '@me' && b === 'channels' ? openDm(state, request.body) : notFound();
    case 'GET 3 channels':
      return b === 'messages' && a !== undefined ? listMessages(state, a, query) : notFound();
    case 'POST 3 channels':
      if (b === 'messages' && a !== undefined) return createMessage(state, a, body);
      return b === 'typing' ? noContent : notFound();
    case 'GET 4 channels':
    case 'PATCH 4 channels':
    case 'DELETE 4 channels':
      return b === 'messages' && a !== undefined && c !== undefined ? messageById(state, method, a, c, body) : notFound();
    case 'PUT 3 applications':
    case 'PUT 5 applications':
      return (b === 'commands' || d === 'commands') && a !== undefined ? echoCommands(state, a, request.body) : notFound();
    case 'POST 4 interactions':
      return c === 'callback' && a !== undefined && b !== undefined ? interactionCallback(state, a, b, query, request.body) : notFound();
    case 'PATCH 5 webhooks':
      return c === 'messages' && d === '@original' && a !== undefined && b !== undefined ? editOriginal(state, a, b, body) : notFound();
    case 'POST 3 webhooks':
      return a !== undefined && b !== undefined ? followUp(state, a, b, body) : notFound();
    default:
      return notFound();
  }
}

function gatewayBot(url: string, shards: number): unknown {
  return {
    url,
    shards,
    // As for the largest bots: every shard may identify at once, so a client running several does not wait 5 s between them.
    session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 16 },
  };
}

function echoCommands(state: RestState, applicationId: string, body: unknown): HttpReply {
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
