/**
 * The fake Discord world: ids, the bot, one guild with one text channel, and the JSON shapes
 * discord.js needs to build its structures from gateway events and REST answers.
 */

/** A fixed instant for every timestamp, so payloads are deterministic. */
export const FIXED_TIMESTAMP = '2024-01-01T00:00:00.000Z';

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
  readonly attachments: readonly unknown[];
  readonly embeds: readonly unknown[];
  readonly components: readonly unknown[];
  readonly pinned: boolean;
  readonly type: number;
  readonly flags: number;
  readonly message_reference?: unknown;
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

/** The ids of everything in the fake world, fixed at start so tests can refer to them. */
export interface World {
  readonly applicationId: string;
  readonly bot: UserJson;
  readonly guildId: string;
  readonly guildName: string;
  readonly channelId: string;
  readonly roleId: string;
  readonly user: UserJson;
}

/** Creates the bot, the guild, its channel, a role and a user holding that role. */
export function createWorld(ids: SnowflakeCounter): World {
  const botId = ids.next();
  return {
    applicationId: botId,
    bot: user(botId, 'holdfast-bot', true),
    guildId: ids.next(),
    guildName: 'Fake Guild',
    channelId: ids.next(),
    roleId: ids.next(),
    user: user(ids.next(), 'alice', false),
  };
}

/** A user object; other users than the fixed ones get a name derived from their id. */
export function user(id: string, username: string, bot: boolean): UserJson {
  return { id, username, discriminator: '0', global_name: null, avatar: null, bot };
}

/** A member entry, as a message or interaction carries it (without `user`). */
export function member(roles: readonly string[]): MemberJson {
  return { roles, joined_at: FIXED_TIMESTAMP, nick: null, deaf: false, mute: false, flags: 0 };
}

/** The READY event's `d`: one unavailable guild that GUILD_CREATE fills in. */
export function readyPayload(world: World, sessionId: string, gatewayUrl: string): Record<string, unknown> {
  return {
    v: 10,
    user: { ...world.bot, verified: true, mfa_enabled: false, flags: 0 },
    guilds: [{ id: world.guildId, unavailable: true }],
    session_id: sessionId,
    resume_gateway_url: gatewayUrl,
    application: { id: world.applicationId, flags: 0 },
    private_channels: [],
    relationships: [],
    presences: [],
    shard: [0, 1],
  };
}

function role(id: string, name: string, position: number, permissions: string): Record<string, unknown> {
  return {
    id,
    name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position,
    permissions,
    managed: false,
    mentionable: false,
    flags: 0,
  };
}

/** The GUILD_CREATE event's `d`: the guild with roles, one text channel and two members. */
export function guildCreatePayload(world: World): Record<string, unknown> {
  return {
    id: world.guildId,
    name: world.guildName,
    icon: null,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: null,
    owner_id: world.user.id,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    mfa_level: 0,
    nsfw_level: 0,
    premium_tier: 0,
    premium_subscription_count: 0,
    premium_progress_bar_enabled: false,
    preferred_locale: 'en-US',
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    vanity_url_code: null,
    application_id: null,
    features: [],
    // @everyone's id is the guild's id; it grants View Channel, Send Messages and Read History.
    roles: [role(world.guildId, '@everyone', 0, '68608'), role(world.roleId, 'Helper', 1, '68608')],
    emojis: [],
    stickers: [],
    channels: [
      {
        id: world.channelId,
        type: 0,
        guild_id: world.guildId,
        name: 'general',
        position: 0,
        parent_id: null,
        topic: null,
        nsfw: false,
        last_message_id: null,
        rate_limit_per_user: 0,
        permission_overwrites: [],
        flags: 0,
      },
    ],
    threads: [],
    members: [
      { ...member([]), user: world.bot },
      { ...member([world.roleId]), user: world.user },
    ],
    member_count: 2,
    large: false,
    unavailable: false,
    joined_at: FIXED_TIMESTAMP,
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
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
  readonly messageReference?: unknown;
}

/** A full message object. */
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
    attachments: [],
    embeds: [],
    components: [],
    pinned: false,
    type: fields.messageReference === undefined ? 0 : 19,
    flags: 0,
    ...(fields.messageReference === undefined ? {} : { message_reference: fields.messageReference }),
  };
}

/** One option of a slash command, as INTERACTION_CREATE carries it (types: 3 string, 4 integer, 5 boolean). */
export interface CommandOptionJson {
  readonly name: string;
  readonly type: number;
  readonly value: string | number | boolean;
}

/** Options for an interaction built by {@link interactionPayload}. */
export interface InteractionFields {
  readonly id: string;
  readonly token: string;
  readonly commandId: string;
  readonly name: string;
  readonly options: readonly CommandOptionJson[];
  readonly channelId: string;
  readonly user: UserJson;
  readonly roles: readonly string[];
}

/** A guild chat-input command interaction (INTERACTION_CREATE type 2) in the world's guild. */
export function interactionPayload(world: World, fields: InteractionFields): Record<string, unknown> {
  return {
    id: fields.id,
    application_id: world.applicationId,
    type: 2,
    data: { id: fields.commandId, name: fields.name, type: 1, options: fields.options, guild_id: world.guildId },
    guild_id: world.guildId,
    guild: { id: world.guildId, locale: 'en-US', features: [] },
    channel_id: fields.channelId,
    channel: { id: fields.channelId, type: 0, guild_id: world.guildId, name: 'general', flags: 0 },
    member: { ...member(fields.roles), user: fields.user, permissions: '68608' },
    token: fields.token,
    version: 1,
    app_permissions: '68608',
    locale: 'en-US',
    guild_locale: 'en-US',
    entitlements: [],
    authorizing_integration_owners: { '0': world.guildId },
    context: 0,
    attachment_size_limit: 8_388_608,
  };
}
