import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Conditions } from '../conditions.js';
import { ATTACHMENTS_PATH, AttachmentStore } from './attachments.js';
import { FailureQueue, failureReply, type Failure } from './failures.js';
import type { ModalJson } from './components.js';
import { SnowflakeCounter, member, messagePayload, user, type MessageJson, type UserJson } from './fixtures.js';
import { createWorld, guildOf, type World } from './world.js';
import { FakeGateway, type Identify, type PresenceUpdate } from './gateway.js';
import { userRoles } from './guild.js';
import { notFound, parseBody, readBody, writeReply, type HttpReply } from './http.js';
import { InteractionLog, type InteractionAnswer } from './interaction_log.js';
import { channelMessages } from './messages.js';
import { RequestLog, type ReceivedRequest, type RecordedRequest } from './requests.js';
import { route } from './rest.js';
import type { ButtonPress, DispatchedInteraction, ModalSubmission, SlashCommand, UserMessage } from './user_input.js';
import { UserInteractions } from './user_interactions.js';
import { eventOf, UserMessageChanges } from './user_message_changes.js';

export type { AttachmentFile } from './attachments.js';
export type { ModalJson } from './components.js';
export type { Failure } from './failures.js';
export type { AttachmentJson, MessageJson, MessageReferenceJson, UserJson } from './fixtures.js';
export type { Guild, GuildChannel, PlaceChannel, World } from './world.js';
export type { Identify, PresenceActivity, PresenceUpdate } from './gateway.js';
export type { CommandOptionJson } from './interactions.js';
export type { AnswerType, InteractionAnswer } from './interaction_log.js';
export type { ReceivedRequest, RecordedRequest } from './requests.js';
import { guildShard } from './shards.js';
export { guildShard, type Shard } from './shards.js';
export type { ButtonPress, DispatchedInteraction, ModalSubmission, SlashCommand, UserMessage } from './user_input.js';

/** Options for {@link FakeDiscord.start}. */
export interface FakeDiscordOptions {
  /** The only token the gateway accepts (default {@link FakeDiscord.TOKEN}). */
  readonly token?: string;
  /** How many text channels each guild has (default 1); their ids are `world.channelIds`. */
  readonly channels?: number;
  /** How many guilds the bot is in (default 1): `world.guilds`, on consecutive shards of any count. */
  readonly guilds?: number;
  /** How many shards `GET /gateway/bot` recommends (default 1), for a client started with `shards: 'auto'`. */
  readonly shards?: number;
  /** The port on 127.0.0.1 to listen on (default: a free one), for a Discord that comes up where a bot already looks for it. */
  readonly port?: number;
  /** The gateway URL `GET /gateway/bot` hands out instead of the fake's own: one where nothing listens, for a gateway out of reach. */
  readonly gatewayUrl?: string;
}

const API_PREFIX = '/api/v10/';

/**
 * A real Discord stand-in on 127.0.0.1: REST under `/api/v10`, attachment downloads under
 * `/attachments` and a WebSocket gateway on the same port, enough for the real discord.js
 * `Client` to log in, receive guild and direct messages, and answer. Each guild's events go to
 * the shard that owns it, and direct messages to shard 0, as Discord routes them.
 */
export class FakeDiscord {
  /** The token {@link FakeDiscord.start} accepts unless told otherwise. */
  static readonly TOKEN = 'fake-bot-token';

  /** Every IDENTIFY, in arrival order. */
  readonly identifies: Identify[] = [];
  /** Every PRESENCE_UPDATE (op 3) of an identified connection, in arrival order. */
  readonly presences: PresenceUpdate[] = [];
  /** The bot, the guilds, their channels, the first guild's category and thread, the role and user, and the user's DM channel. */
  readonly world: World;
  readonly #recommendedShards: number;
  readonly #gatewayUrl: string | undefined;

  readonly #ids = new SnowflakeCounter();
  readonly #messages = new Map<string, MessageJson>();
  readonly #log = new RequestLog();
  readonly #failures = new FailureQueue();
  readonly #attachments = new AttachmentStore();
  readonly #server: Server;
  readonly #gateway: FakeGateway;
  readonly #changes: UserMessageChanges;
  readonly #interactions = new InteractionLog();
  readonly #users: UserInteractions;
  readonly #gatewayConditions = new Conditions();
  readonly #presenceConditions = new Conditions();
  #port = 0;

  private constructor(token: string, options: FakeDiscordOptions) {
    this.world = createWorld(this.#ids, options.channels ?? 1, options.guilds ?? 1);
    this.#recommendedShards = options.shards ?? 1;
    this.#gatewayUrl = options.gatewayUrl;
    this.#server = createServer((req, res) => void this.#handle(req, res));
    this.#gateway = new FakeGateway({
      server: this.#server,
      world: this.world,
      ids: this.#ids,
      token,
      url: () => this.gatewayUrl,
      onIdentify: (identify) => this.identifies.push(identify),
      onPresence: (presence) => {
        this.presences.push(presence);
        this.#presenceConditions.changed();
      },
      onConnection: () => this.#gatewayConditions.changed(),
    });
    this.#changes = new UserMessageChanges(this.world, this.#messages, this.#gateway);
    this.#users = new UserInteractions(this.world, this.#ids, this.#messages, this.#gateway, this.#interactions);
  }

  /** Starts the fake on `options.port`, else on a random free port. */
  static async start(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
    const fake = new FakeDiscord(options.token ?? FakeDiscord.TOKEN, options);
    await new Promise<void>((resolve) => fake.#server.listen(options.port ?? 0, '127.0.0.1', resolve));
    fake.#port = (fake.#server.address() as AddressInfo).port;
    return fake;
  }

  /** Every request (REST and attachment downloads) with the status it got, in arrival order. */
  get requests(): RecordedRequest[] {
    return this.#log.requests;
  }

  /** The REST root to pass as the client's `rest.api` option. */
  get restUrl(): string {
    return `${this.#origin}/api`;
  }

  /** The gateway URL that `GET /gateway/bot` hands out. */
  get gatewayUrl(): string {
    return this.#gatewayUrl ?? `ws://127.0.0.1:${this.#port}`;
  }

  /** The bot user, as READY announced it. */
  get bot(): UserJson {
    return this.world.bot;
  }

  get #origin(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /**
   * Sends MESSAGE_CREATE from a user and stores the message; returns its id. A message in one of
   * the guilds' channels or the thread carries `guild_id` and `member`; one anywhere else is a DM and carries neither.
   */
  dispatchMessage(message: UserMessage): Promise<string> {
    const { world } = this;
    const guildId = guildOf(world, message.channelId);
    const author = message.authorId === world.user.id ? world.user : user(message.authorId, `user-${message.authorId}`, message.authorIsBot === true);
    const payload = messagePayload({
      id: message.messageId ?? this.#ids.next(),
      channelId: message.channelId,
      guildId,
      author,
      member: guildId === undefined ? undefined : { ...member(author.id === world.user.id ? userRoles(world, guildId) : []), nick: message.authorNick ?? null },
      content: message.content,
      mentions: message.mentionsBot === true ? [world.bot] : [],
      attachments: this.#attachments.add(this.#ids, this.#origin, message.attachments ?? []),
    });
    this.#messages.set(payload.id, payload);
    this.#gateway.dispatch('MESSAGE_CREATE', eventOf(this.world, payload), guildId);
    return Promise.resolve(payload.id);
  }

  /**
   * Sends INTERACTION_CREATE for a slash command in a guild channel. Its answers arrive as
   * `POST /interactions/:id/:token/callback` and `/webhooks/:appId/:token` calls ({@link FakeDiscord.interactionAnswers}).
   */
  dispatchInteraction(command: SlashCommand): Promise<DispatchedInteraction> {
    return Promise.resolve(this.#users.command(command));
  }

  /** Sends INTERACTION_CREATE for a press of a stored message's button (type 3); throws when the message has no such button. */
  pressButton(press: ButtonPress): DispatchedInteraction {
    return this.#users.press(press);
  }

  /** Sends INTERACTION_CREATE for the submission (type 5) of the modal `opener` was answered with; throws when it was not. */
  submitModal(submission: ModalSubmission): DispatchedInteraction {
    return this.#users.submit(submission);
  }

  /** Resolves with the modal `opener` was answered with (callback 9), shown already or still to come. */
  whenModal(opener: DispatchedInteraction): Promise<ModalJson> {
    return this.#interactions.whenModal(opener.id);
  }

  /** Every callback, follow-up and `@original` edit interaction `id` got, in order. */
  interactionAnswers(id: string): InteractionAnswer[] {
    return this.#interactions.answers(id);
  }

  /** Resolves with the first answer to interaction `id` that matches, already given or still to come. */
  whenInteractionAnswer(id: string, matches: (answer: InteractionAnswer) => boolean = () => true): Promise<InteractionAnswer> {
    return this.#interactions.whenAnswer(id, matches);
  }

  /** Changes a stored message's content, as `GET` will return it, and sends MESSAGE_UPDATE. */
  editUserMessage(id: string, content: string): void {
    this.#changes.edit(id, content);
  }

  /** Forgets a stored message, so `GET` answers 10008 Unknown Message, and sends MESSAGE_DELETE. */
  deleteUserMessage(id: string): void {
    this.#changes.delete(id);
  }

  /** Forgets stored messages of one channel at once, as a moderator's purge does, and sends MESSAGE_DELETE_BULK. */
  deleteUserMessages(channelId: string, ids: readonly string[]): void {
    this.#changes.deleteMany(channelId, ids);
  }

  /** The first text channel of a guild that shard `id` of `count` receives. */
  channelOnShard(id: number, count: number): string {
    const channel = this.world.guildChannels.find((c) => guildShard(c.guildId, count) === id);
    if (channel === undefined) throw new Error(`no guild is on shard ${id} of ${count}: start the fake with more guilds`);
    return channel.id;
  }

  /** The stored message with this id, if any. */
  message(id: string): MessageJson | undefined {
    return this.#messages.get(id);
  }

  /** The stored messages of one channel, users' and the bot's, oldest first. */
  messagesIn(channelId: string): MessageJson[] {
    return channelMessages(this.#messages, channelId);
  }

  /** Resolves with the first recorded request that matches, already seen or still to come. */
  whenRequest(matches: (request: RecordedRequest) => boolean): Promise<RecordedRequest> {
    return this.#log.when(matches);
  }

  /** Calls `listener` with each request recorded from now on, as it is answered: for a watcher of many channels at once. */
  onRequest(listener: (request: RecordedRequest) => void): void {
    this.#log.listen(listener);
  }

  /**
   * Fails the next `failure.times` (default 1) requests that match, with `failure.status`: 429 in
   * Discord's rate-limit shape, 5xx as a server error. With `afterEffect` the request still takes
   * effect and only its answer is the error. Failures added earlier are used first.
   */
  failNext(matches: (request: ReceivedRequest) => boolean, failure: Failure): void {
    this.#failures.add(matches, failure);
  }

  /** Drops every gateway connection with close `code`, as Discord does; the client reconnects unless the code forbids it. */
  dropGateway(code: number): void {
    this.#gateway.drop(code);
  }

  /** Resolves once the gateway accepted `count` connections in all. */
  whenGatewayConnections(count: number): Promise<void> {
    return this.#gatewayConditions.when(() => this.#gateway.connections >= count);
  }

  /** Resolves once the gateway received `count` presence updates in all. */
  whenPresences(count: number): Promise<void> {
    return this.#presenceConditions.when(() => this.presences.length >= count);
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
    const at = performance.now();
    const pathname = decodeURIComponent(url.pathname);
    const versioned = pathname.startsWith(API_PREFIX);
    const request: ReceivedRequest = {
      method: req.method ?? 'GET',
      path: versioned ? pathname.slice(API_PREFIX.length - 1) : pathname,
      query: url.search,
      body: parseBody(text),
    };
    const failure = this.#failures.take(request);
    const answered = failure === undefined || failure.afterEffect === true ? this.#answer(request, versioned, url.searchParams) : undefined;
    const reply = failure === undefined ? (answered ?? notFound()) : failureReply(failure);
    this.#log.record({ ...request, status: reply.status, at });
    writeReply(res, reply);
  }

  #answer(request: ReceivedRequest, versioned: boolean, query: URLSearchParams): HttpReply {
    if (versioned) {
      const state = { world: this.world, ids: this.#ids, messages: this.#messages, interactions: this.#interactions, gatewayUrl: () => this.gatewayUrl, recommendedShards: this.#recommendedShards };
      return route(state, { method: request.method, segments: request.path.split('/').slice(1), query, body: request.body });
    }
    return request.path.startsWith(ATTACHMENTS_PATH) ? this.#attachments.serve(request.method, request.path) : notFound();
  }
}
