import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeGateway, type Identify } from './gateway.js';
import {
  SnowflakeCounter,
  createWorld,
  interactionPayload,
  member,
  messagePayload,
  user,
  type CommandOptionJson,
  type MessageJson,
  type UserJson,
  type World,
} from './fixtures.js';
import { notFound, route, type RestReply } from './rest.js';

export type { Identify } from './gateway.js';
export type { CommandOptionJson, MessageJson, UserJson, World } from './fixtures.js';

/** A REST request as the fake saw it. `path` is what follows `/api/v10`, without the query. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  /** The parsed JSON body, the raw text if it is not JSON, or undefined when empty. */
  readonly body: unknown;
}

/** Options for {@link FakeDiscord.start}. */
export interface FakeDiscordOptions {
  /** The only token the gateway accepts (default {@link FakeDiscord.TOKEN}). */
  readonly token?: string;
}

/** A user message to dispatch as MESSAGE_CREATE. */
export interface UserMessage {
  readonly channelId: string;
  readonly authorId: string;
  readonly content: string;
  /** Lists the bot in `mentions` (the content is left as given). */
  readonly mentionsBot?: boolean;
  readonly messageId?: string;
}

/** A slash command use to dispatch as INTERACTION_CREATE, by the world's user in its channel unless told. */
export interface SlashCommand {
  readonly name: string;
  readonly options?: readonly CommandOptionJson[];
  readonly channelId?: string;
  readonly userId?: string;
}

/** The ids a dispatched interaction's answers are addressed with. */
export interface DispatchedInteraction {
  readonly id: string;
  readonly token: string;
}

const API_PREFIX = '/api/v10/';

/**
 * A real Discord stand-in on 127.0.0.1: REST under `/api/v10` and a WebSocket gateway on the
 * same port, enough for the real discord.js `Client` to log in, receive messages and answer.
 */
export class FakeDiscord {
  /** The token {@link FakeDiscord.start} accepts unless told otherwise. */
  static readonly TOKEN = 'fake-bot-token';

  /** Every REST request, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  /** Every IDENTIFY, in arrival order. */
  readonly identifies: Identify[] = [];
  /** The bot, the guild, its channel, role and user. */
  readonly world: World;

  readonly #ids = new SnowflakeCounter();
  readonly #messages = new Map<string, MessageJson>();
  readonly #waiters: { readonly matches: (request: RecordedRequest) => boolean; readonly resolve: (request: RecordedRequest) => void }[] = [];
  readonly #server: Server;
  readonly #gateway: FakeGateway;
  #port = 0;

  private constructor(token: string) {
    this.world = createWorld(this.#ids);
    this.#server = createServer((req, res) => void this.#handle(req, res));
    this.#gateway = new FakeGateway({
      server: this.#server,
      world: this.world,
      ids: this.#ids,
      token,
      url: () => this.gatewayUrl,
      onIdentify: (identify) => this.identifies.push(identify),
    });
  }

  /** Starts the fake on a random free port. */
  static async start(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
    const fake = new FakeDiscord(options.token ?? FakeDiscord.TOKEN);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    fake.#port = (fake.#server.address() as AddressInfo).port;
    return fake;
  }

  /** The REST root to pass as the client's `rest.api` option. */
  get restUrl(): string {
    return `http://127.0.0.1:${this.#port}/api`;
  }

  /** The gateway URL that `GET /gateway/bot` hands out. */
  get gatewayUrl(): string {
    return `ws://127.0.0.1:${this.#port}`;
  }

  /** Sends MESSAGE_CREATE from a user and stores the message; returns its id. */
  dispatchMessage(message: UserMessage): Promise<string> {
    const { world } = this;
    const inGuild = message.channelId === world.channelId;
    const author = message.authorId === world.user.id ? world.user : user(message.authorId, `user-${message.authorId}`, false);
    const payload = messagePayload({
      id: message.messageId ?? this.#ids.next(),
      channelId: message.channelId,
      guildId: inGuild ? world.guildId : undefined,
      author,
      member: inGuild ? member(author.id === world.user.id ? [world.roleId] : []) : undefined,
      content: message.content,
      mentions: message.mentionsBot === true ? [world.bot] : [],
    });
    this.#messages.set(payload.id, payload);
    this.#gateway.dispatch('MESSAGE_CREATE', payload);
    return Promise.resolve(payload.id);
  }

  /**
   * Sends INTERACTION_CREATE for a guild slash command. Its answers arrive as
   * `POST /interactions/:id/:token/callback` and `PATCH /webhooks/:appId/:token/messages/@original`.
   */
  dispatchInteraction(command: SlashCommand): Promise<DispatchedInteraction> {
    const { world } = this;
    const userId = command.userId ?? world.user.id;
    const author = userId === world.user.id ? world.user : user(userId, `user-${userId}`, false);
    const id = this.#ids.next();
    const token = `interaction-token-${id}`;
    const payload = interactionPayload(world, {
      id,
      token,
      commandId: this.#ids.next(),
      name: command.name,
      options: command.options ?? [],
      channelId: command.channelId ?? world.channelId,
      user: author,
      roles: userId === world.user.id ? [world.roleId] : [],
    });
    this.#gateway.dispatch('INTERACTION_CREATE', payload);
    return Promise.resolve({ id, token });
  }

  /** Changes a stored message's content, as `GET` will return it (no gateway event). */
  editUserMessage(id: string, content: string): void {
    const message = this.#messages.get(id);
    if (message === undefined) throw new Error(`no message ${id}`);
    message.content = content;
    message.edited_timestamp = message.timestamp;
  }

  /** Forgets a stored message, so `GET` answers 10008 Unknown Message (no gateway event). */
  deleteUserMessage(id: string): void {
    this.#messages.delete(id);
  }

  /** The stored message with this id, if any. */
  message(id: string): MessageJson | undefined {
    return this.#messages.get(id);
  }

  /** The bot user, as READY announced it. */
  get bot(): UserJson {
    return this.world.bot;
  }

  /** Resolves with the first recorded request that matches, already seen or still to come. */
  whenRequest(matches: (request: RecordedRequest) => boolean): Promise<RecordedRequest> {
    const seen = this.requests.find(matches);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ matches, resolve }));
  }

  /** Closes every socket and the server. */
  async close(): Promise<void> {
    await this.#gateway.close();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const text = await readBody(req);
    const method = req.method ?? 'GET';
    const versioned = url.pathname.startsWith(API_PREFIX);
    const pathname = decodeURIComponent(url.pathname);
    const path = versioned ? pathname.slice(API_PREFIX.length - 1) : pathname;
    const request: RecordedRequest = { method, path, query: url.search, body: parseBody(text) };
    const reply: RestReply = versioned
      ? route(
          { world: this.world, ids: this.#ids, messages: this.#messages, gatewayUrl: () => this.gatewayUrl },
          method,
          path.split('/').slice(1),
          request.body,
        )
      : notFound();
    this.#record(request);
    if (reply.body === undefined) {
      res.writeHead(reply.status).end();
    } else {
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
    }
  }

  #record(request: RecordedRequest): void {
    this.requests.push(request);
    for (let i = this.#waiters.length - 1; i >= 0; i -= 1) {
      const waiter = this.#waiters[i];
      if (waiter?.matches(request) === true) {
        this.#waiters.splice(i, 1);
        waiter.resolve(request);
      }
    }
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
