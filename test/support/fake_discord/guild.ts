import { guildChannelPayload, placeChannelPayload } from './channels.js';
import { FIXED_TIMESTAMP, member } from './fixtures.js';
import { type Guild, type World } from './world.js';

/** The permissions every role grants: View Channel, Send Messages and Read Message History. */
export const PERMISSIONS = '68608';

function role(id: string, name: string, position: number): Record<string, unknown> {
  return {
    id,
    name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position,
    permissions: PERMISSIONS,
    managed: false,
    mentionable: false,
    flags: 0,
  };
}

/** The roles the world's user holds in `guildId`: the Helper role in the first guild, none elsewhere. */
export function userRoles(world: World, guildId: string): string[] {
  return guildId === world.guildId ? [world.roleId] : [];
}

/**
 * The GUILD_CREATE event's `d`: the guild with roles (Helper in the first guild only), its text
 * channels (the first guild's category and the channel in it too), its active threads (the first
 * guild's one) and two members.
 */
export function guildCreatePayload(world: World, guild: Guild): Record<string, unknown> {
  const helper = guild.id === world.guildId ? [role(world.roleId, 'Helper', 1)] : [];
  const places = world.placeChannels.filter((channel) => channel.guildId === guild.id);
  return {
    id: guild.id,
    name: guild.name,
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
    // @everyone's id is the guild's id.
    roles: [role(guild.id, '@everyone', 0), ...helper],
    emojis: [],
    stickers: [],
    channels: [
      ...world.guildChannels.filter((channel) => channel.guildId === guild.id).map((channel) => guildChannelPayload(channel, null)),
      ...places.filter((channel) => channel.type !== 11).map((channel) => placeChannelPayload(channel, null)),
    ],
    threads: places.filter((channel) => channel.type === 11).map((channel) => placeChannelPayload(channel, null)),
    members: [
      { ...member([]), user: world.bot },
      { ...member(userRoles(world, guild.id)), user: world.user },
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
