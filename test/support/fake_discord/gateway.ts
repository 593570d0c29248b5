import type { Server } from 'node:http';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { readyPayload, type SnowflakeCounter } from './fixtures.js';
import { type World } from './world.js';
import { guildCreatePayload } from './guild.js';
import { identifiedShard, receives, sameShard, type Shard } from './shards.js';

/** Gateway opcodes the fake speaks. */
const Op = { Dispatch: 0, Heartbeat: 1, Identify: 2, PresenceUpdate: 3, Hello: 10, HeartbeatAck: 11 } as const;

/** Discord's close codes the fake uses: a refused token; a shard that is no shard, or already connected. */
const Close = { AuthenticationFailed: 4004, InvalidShard: 4010 } as const;

/** What a client sent in IDENTIFY. */
export interface Identify {
  readonly token: string;
  readonly intents: number;
  /** The shard it named, `undefined` when its `shard` field is no shard; `[0, 1]` when it named none. */
  readonly shard: Shard | undefined;
}

/** What a client sent in a PRESENCE_UPDATE (op 3), and on which shard's connection. */
export interface PresenceUpdate {
  readonly shard: Shard;
  readonly status: string;
  readonly activities: readonly PresenceActivity[];
}

/** One activity of a presence as the client sent it; a custom status carries its text in `state`. */
export interface PresenceActivity {
  readonly type: number;
  readonly name: string;
  readonly state?: string;
}

/** A frame from the client; IDENTIFY's and PRESENCE_UPDATE's `d` are read. */
interface GatewayFrame {
  readonly op: number;
  readonly d?: (IdentifyData & PresenceData) | null;
}

interface PresenceData {
  readonly status?: unknown;
  readonly activities?: unknown;
}

interface IdentifyData {
  readonly token?: unknown;
  readonly intents?: unknown;
  readonly shard?: unknown;
}

/** One identified connection, the shard it runs and its dispatch sequence number. */
interface Session {
  readonly socket: WebSocket;
  readonly shard: Shard;
  seq: number;
}

/** Settings the gateway needs from its owner. */
export interface GatewayOptions {
  readonly server: Server;
  readonly world: World;
  readonly ids: SnowflakeCounter;
  /** The token IDENTIFY must carry; any other one closes the socket with 4004. */
  readonly token: string;
  readonly url: () => string;
  readonly onIdentify: (identify: Identify) => void;
  /** Called with each PRESENCE_UPDATE of an identified connection. */
  readonly onPresence: (presence: PresenceUpdate) => void;
  /** Called after each connection it accepts. */
  readonly onConnection: () => void;
}

/**
 * The WebSocket half of the fake: HELLO, heartbeats, IDENTIFY → READY + a GUILD_CREATE for each
 * guild of the identified shard, and each guild's dispatches to the connection of the shard that
 * owns it (direct messages to shard 0). A PRESENCE_UPDATE is recorded with the shard it came on. A second IDENTIFY of a shard already connected is
 * refused with close code 4010, which discord.js does not retry.
 */
export class FakeGateway {
  readonly #wss: WebSocketServer;
  readonly #options: GatewayOptions;
  readonly #sessions: Session[] = [];
  #accepted = 0;

  constructor(options: GatewayOptions) {
    this.#options = options;
    this.#wss = new WebSocketServer({ server: options.server });
    this.#wss.on('connection', (socket) => this.#accept(socket));
  }

  /** Sends a dispatch event (op 0) of `guildId` (`undefined` for a direct message) to the connections of the shard that owns it. */
  dispatch(event: string, data: unknown, guildId: string | undefined): void {
    for (const session of this.#sessions.filter((s) => receives(s.shard, guildId))) this.#send(session, event, data);
  }

  /** How many connections it accepted so far (a client that reconnects makes a new one). */
  get connections(): number {
    return this.#accepted;
  }

  /** Closes every connection with `code`, as Discord does when it drops a client; the client may reconnect. */
  drop(code: number): void {
    this.#sessions.splice(0);
    for (const socket of this.#wss.clients) socket.close(code, 'dropped');
  }

  /** Closes every connection and stops accepting new ones. */
  async close(): Promise<void> {
    for (const socket of this.#wss.clients) socket.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  #accept(socket: WebSocket): void {
    this.#accepted += 1;
    this.#options.onConnection();
    socket.send(JSON.stringify({ op: Op.Hello, d: { heartbeat_interval: 41_250 }, s: null, t: null }));
    socket.on('message', (raw) => this.#receive(socket, raw));
    socket.on('close', () => {
      const index = this.#sessions.findIndex((session) => session.socket === socket);
      if (index >= 0) this.#sessions.splice(index, 1);
    });
  }

  #receive(socket: WebSocket, raw: RawData): void {
    const frame = JSON.parse(rawText(raw)) as GatewayFrame;
    if (frame.op === Op.Heartbeat) {
      socket.send(JSON.stringify({ op: Op.HeartbeatAck, d: null, s: null, t: null }));
    } else if (frame.op === Op.Identify) {
      this.#identify(socket, frame.d ?? {});
    } else if (frame.op === Op.PresenceUpdate) {
      const session = this.#sessions.find((s) => s.socket === socket);
      if (session !== undefined) this.#options.onPresence(presenceOf(session.shard, frame.d ?? {}));
    }
  }

  #identify(socket: WebSocket, data: IdentifyData): void {
    const token = typeof data.token === 'string' ? data.token : '';
    const shard = identifiedShard(data.shard);
    this.#options.onIdentify({ token, intents: typeof data.intents === 'number' ? data.intents : 0, shard });
    if (token !== this.#options.token) {
      socket.close(Close.AuthenticationFailed, 'Authentication failed.');
      return;
    }
    if (shard === undefined || this.#sessions.some((session) => sameShard(session.shard, shard))) {
      socket.close(Close.InvalidShard, 'Invalid shard.');
      return;
    }
    const session: Session = { socket, shard, seq: 0 };
    this.#sessions.push(session);
    const { world, ids, url } = this.#options;
    const guilds = world.guilds.filter((guild) => receives(shard, guild.id));
    this.#send(session, 'READY', readyPayload(world, `session-${ids.next()}`, url(), shard, guilds));
    for (const guild of guilds) this.#send(session, 'GUILD_CREATE', guildCreatePayload(world, guild));
  }

  #send(session: Session, event: string, data: unknown): void {
    session.seq += 1;
    session.socket.send(JSON.stringify({ op: Op.Dispatch, t: event, s: session.seq, d: data }));
  }
}

function presenceOf(shard: Shard, data: PresenceData): PresenceUpdate {
  return { shard, status: typeof data.status === 'string' ? data.status : '', activities: Array.isArray(data.activities) ? (data.activities as PresenceActivity[]) : [] };
}

function rawText(raw: RawData): string {
  if (Array.isArray(raw)) return Buffer.concat(raw).toString('utf8');
  if (raw instanceof ArrayBuffer) return Buffer.from(raw).toString('utf8');
  return raw.toString('utf8');
}
