import { channelPayload } from './channels.js';
import { member, type UserJson } from './fixtures.js';
import { type World } from './world.js';
import { PERMISSIONS } from './guild.js';

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
  /** The guild of the channel. */
  readonly guildId: string;
  readonly user: UserJson;
  readonly roles: readonly string[];
}

/** A guild chat-input command interaction (INTERACTION_CREATE type 2). */
export function interactionPayload(world: World, fields: InteractionFields): Record<string, unknown> {
  const { guildId } = fields;
  return {
    id: fields.id,
    application_id: world.applicationId,
    type: 2,
    data: { id: fields.commandId, name: fields.name, type: 1, options: fields.options, guild_id: guildId },
    guild_id: guildId,
    guild: { id: guildId, locale: 'en-US', features: [] },
    channel_id: fields.channelId,
    channel: channelPayload(world, fields.channelId, null) ?? { id: fields.channelId, type: 0, guild_id: guildId, name: 'general', flags: 0 },
    member: { ...member(fields.roles), user: fields.user, permissions: PERMISSIONS },
    token: fields.token,
    version: 1,
    app_permissions: PERMISSIONS,
    locale: 'en-US',
    guild_locale: 'en-US',
    entitlements: [],
    authorizing_integration_owners: { '0': guildId },
    context: 0,
    attachment_size_limit: 8_388_608,
  };
}
