import { channelPayload } from './channels.js';
import { member, user, type UserJson } from './fixtures.js';
import { type World } from './world.js';
import { PERMISSIONS, userRoles } from './guild.js';

/** One option of a slash command, as INTERACTION_CREATE carries it (types: 3 string, 4 integer, 5 boolean, 6 user, 7 channel: their value the id). */
export interface CommandOptionJson {
  readonly name: string;
  readonly type: number;
  readonly value: string | number | boolean;
}

/** An interaction's id and the token its answers are addressed with. */
export interface InteractionIds {
  readonly id: string;
  readonly token: string;
}

/** Where an interaction happens and who uses it. */
export interface InteractionUse {
  readonly channelId: string;
  /** The channel's guild; none in the DM channel. */
  readonly guildId: string | undefined;
  readonly user: UserJson;
  /** The user's roles in the guild. */
  readonly roles: readonly string[];
}

/** Options for a slash command built by {@link interactionPayload}. */
export interface CommandFields {
  readonly commandId: string;
  readonly name: string;
  readonly options: readonly CommandOptionJson[];
}

/**
 * Who uses an interaction in `guildId`: the world's user with their roles unless `userId` names
 * another, who holds no roles; `roles`, when given, are the ones held instead.
 */
export function interactionUser(world: World, guildId: string | undefined, userId?: string, roles?: readonly string[]): { user: UserJson; roles: readonly string[] } {
  const id = userId ?? world.user.id;
  if (id !== world.user.id) return { user: user(id, `user-${id}`, false), roles: roles ?? [] };
  return { user: world.user, roles: roles ?? (guildId === undefined ? [] : userRoles(world, guildId)) };
}

/**
 * The INTERACTION_CREATE `d` every kind of interaction shares, with its `type` and `data`: in a
 * guild the user comes as a member with roles and permissions, in the DM channel as a user.
 */
export function interactionEnvelope(world: World, ids: InteractionIds, type: number, use: InteractionUse, data: Record<string, unknown>): Record<string, unknown> {
  const { guildId } = use;
  const where =
    guildId === undefined
      ? { user: use.user, authorizing_integration_owners: { '0': '0' }, context: 1 }
      : {
          guild_id: guildId,
          guild: { id: guildId, locale: 'en-US', features: [] },
          member: { ...member(use.roles), user: use.user, permissions: PERMISSIONS },
          guild_locale: 'en-US',
          authorizing_integration_owners: { '0': guildId },
          context: 0,
        };
  return {
    id: ids.id,
    application_id: world.applicationId,
    type,
    data,
    ...where,
    channel_id: use.channelId,
    channel: channelPayload(world, use.channelId, null) ?? { id: use.channelId, type: 0, guild_id: guildId, name: 'general', flags: 0 },
    token: ids.token,
    version: 1,
    app_permissions: PERMISSIONS,
    locale: 'en-US',
    entitlements: [],
    attachment_size_limit: 8_388_608,
  };
}

/** A guild chat-input command interaction (INTERACTION_CREATE type 2), with the users and channels its options name resolved, as Discord sends them. */
export function interactionPayload(world: World, ids: InteractionIds, use: InteractionUse, command: CommandFields): Record<string, unknown> {
  const named = (type: number): string[] => command.options.flatMap((option) => (option.type === type ? [String(option.value)] : []));
  const users = named(6).map((id) => [id, id === world.user.id ? world.user : user(id, `user-${id}`, false)] as const);
  const channels = named(7).map((id) => [id, channelPayload(world, id, null) ?? { id, type: 0, guild_id: use.guildId, name: `channel-${id}`, flags: 0 }] as const);
  const resolved = users.length + channels.length === 0 ? {} : { resolved: { users: Object.fromEntries(users), channels: Object.fromEntries(channels) } };
  const data = { id: command.commandId, name: command.name, type: 1, options: command.options, ...resolved, ...(use.guildId === undefined ? {} : { guild_id: use.guildId }) };
  return interactionEnvelope(world, ids, 2, use, data);
}
