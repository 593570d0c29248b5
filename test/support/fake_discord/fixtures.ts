/**
 * The fake Discord world: ids, the bot, the user, and the JSON shapes of users, members and
 * messages that discord.js builds its structures from.
 */

import type { Guild, World } from './world.js';

/** A fixed instant for every creation timestamp, so payloads are deterministic. */
export const FIXED_TIMESTAMP = '2024-01-01T00:00:00.000Z';

/** A fixed instant, one second after {@link FIXED_TIMESTAMP}, for every edit. */
export const EDITED_TIMESTAMP = '2024-01-01T00:00:01.000Z';

/** Hands out increasing snowflake ids from a counter. */
export class SnowflakeCounter {
  #next = 1_200_000_000_000_000_000n;

  /** The next id, larger than every id handed out before. */
  next(): string {
    this.#next += 1n;
    return this.#next.toString();
  }
}

/** A Discord user object as the API sends it. */
export interface UserJson {
  readonly id: string;
  readonly username: string;
  readonly discriminator: string;
  readonly global_name: string | null;
  readonly avatar: string | null;
  readonly bot: boolean;
}

/** A guild member without its user, as a message's `member` carries it. */
export interface MemberJson {
  readonly roles: readonly string[];
  readonly joined_at: string;
  readonly nick: string | null;
  readonly deaf: boolean;
  readonly mute: boolean;
  readonly flags: number;
}

/** A file on a message, as the API sends it; `width` and `height` only for images. */
export interface AttachmentJson {
  readonly id: string;
  readonly filename: string;
  readonly size: number;
  readonly url: string;
  readonly proxy_url: string;
  readonly content_type: string;
  readonly width?: number;
  readonly height?: number;
}

/** What a reply points at, as Discord fills it in (type 0 is a plain reply). */
export interface MessageReferenceJson {
  readonly type: number;
  readonly message_id: string;
  readonly channel_id: string;
  readonly guild_id?: string;
}

/** A Discord message object as the API sends it (the fields discord.js reads). */
export interface MessageJson {
  readonly id: string;
  readonly channel_id: string;
  readonly guild_id?: string;
  readonly author: UserJson;
  readonly member?: MemberJson;
  content: string;
  readonly timestamp: string;
  edited_timestamp: string | null;
  readonly tts: boolean;
  readonly mention_everyone: boolean;
  readonly mentions: readonly UserJson[];
  readonly mention_roles: readonly string[];
  readonly attachments: readonly AttachmentJson[];
  readonly embeds: readonly unknown[];
  /** Action rows (type 1) of buttons (type 2) and other components, as the bot sent them; an edit replaces them. */
  components: readonly unknown[];
  readonly pinned: boolean;
  readonly type: number;
  readonly flags: number;
  readonly message_reference?: MessageReferenceJson;
  readonly nonce?: string | number;
}

/** A user object; other users than the fixed ones get a name derived from their id. */
export function user(id: string, username: string, bot: boolean): UserJson {
  return { id, username, discriminator: '0', global_name: null, avatar: null, bot };
}

/** A member entry, as a message or interaction carries it (without `user`). */
export function member(roles: readonly string[]): MemberJson {
  return { roles, joined_at: FIXED_TIMESTAMP, nick: null, deaf: false, mute: false, flags: 0 };
}

/** The READY event's `d` for one shard (`[id, count]`): its guilds, unavailable until GUILD_CREATE fills them in. */
export function readyPayload(world: World, sessionId: string, gatewayUrl: string, shard: readonly [number, number], guilds: readonly Guild[]): Record<string, unknown> {
  return {
    v: 10,
    user: { ...world.bot, verified: true, mfa_enabled: false, flags: 0 },
    guilds: guilds.map((guild) => ({ id: guild.id, unavailable: true })),
    session_id: sessionId,
    resume_gateway_url: gatewayUrl,
    application: { id: world.applicationId, flags: 0 },
    private_channels: [],
    relationships: [],
    presences: [],
    shard,
  };
}

/** Options for a message built by {@link messagePayload}. */
export interface MessageFields {
  readonly id: string;
  readonly channelId: string;
  readonly guildId: string | undefined;
  readonly author: UserJson;
  readonly member: MemberJson | undefined;
  readonly content: string;
  readonly mentions: readonly UserJson[];
  readonly attachments?: readonly AttachmentJson[];
  readonly messageReference?: MessageReferenceJson;
  readonly nonce?: string | number;
  readonly components?: readonly unknown[];
  /** Message flags, such as 64 for an ephemeral interaction reply (default 0). */
  readonly flags?: number;
}

/** A full message object; one with a reference is a reply (type 19). */
export function messagePayload(fields: MessageFields): MessageJson {
  return {
    id: fields.id,
    channel_id: fields.channelId,
    ...(fields.guildId === undefined ? {} : { guild_id: fields.guildId }),
    author: fields.author,
    ...(fields.member === undefined ? {} : { member: fields.member }),
    content: fields.content,
    timestamp: FIXED_TIMESTAMP,
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: fields.mentions,
    mention_roles: [],
    attachments: fields.attachments ?? [],
    embeds: [],
    components: fields.components ?? [],
    pinned: false,
    type: fields.messageReference === undefined ? 0 : 19,
    flags: fields.flags ?? 0,
    ...(fields.messageReference === undefined ? {} : { message_reference: fields.messageReference }),
    ...(fields.nonce === undefined ? {} : { nonce: fields.nonce }),
  };
}
