import { isAdmin } from '../tools/permissions.js';
import type { PermissionsSettings } from '../tools/permissions_settings.js';
import type { InboundMessage } from '../conversation/transport.js';
import type { AccessSettings } from './access_settings.js';

/** What the access rules look at in a message or slash command. */
export interface Speaker {
  readonly userId: string;
  /** Their roles in the server; none in a direct message. */
  readonly roleIds: readonly string[];
  readonly channelId: string;
  /** For a thread: the channel it belongs to, whose entry the thread inherits. */
  readonly parentChannelId: string | undefined;
  readonly directMessage: boolean;
}

/** Why someone is not answered: for the log, never for them. */
export type AccessRefusal = 'direct_messages_off' | 'user_denied' | 'role_denied' | 'channel_denied' | 'not_an_allowed_person' | 'not_an_allowed_channel';

/**
 * Who may talk to the bot on Discord, and where (the `access` section). `permissions.admins` are
 * always answered. Otherwise a deny of the user, one of their roles or the channel always wins;
 * when `users.allow` or `roles.allow` names anyone, the speaker must be one of those users or hold
 * one of those roles; when `channels.allow` names any, the channel must be one of them. A thread
 * counts as its channel (its own id counts too). A direct message is refused with `allow_dms`
 * off; the channel lists do not apply to it, and it carries no roles.
 */
export class AccessPolicy {
  constructor(
    private readonly access: AccessSettings,
    private readonly permissions: PermissionsSettings,
  ) {}

  /** Why `speaker` is not answered; `undefined` when they are. */
  refusal(speaker: Speaker): AccessRefusal | undefined {
    if (isAdmin(this.permissions, speaker.userId)) return undefined;
    const { users, roles, channels, allow_dms: allowDms } = this.access;
    if (speaker.directMessage && !allowDms) return 'direct_messages_off';
    const holds = (listed: readonly string[]): boolean => speaker.roleIds.some((role) => listed.includes(role));
    const channelIn = (listed: readonly string[]): boolean => listed.includes(speaker.channelId) || (speaker.parentChannelId !== undefined && listed.includes(speaker.parentChannelId));
    if (users.deny.includes(speaker.userId)) return 'user_denied';
    if (holds(roles.deny)) return 'role_denied';
    if (!speaker.directMessage && channelIn(channels.deny)) return 'channel_denied';
    const namesPeople = users.allow.length > 0 || roles.allow.length > 0;
    if (namesPeople && !users.allow.includes(speaker.userId) && !holds(roles.allow)) return 'not_an_allowed_person';
    if (!speaker.directMessage && channels.allow.length > 0 && !channelIn(channels.allow)) return 'not_an_allowed_channel';
    return undefined;
  }
}

/** The speaker of a message or command as the transport hands it over; `directMessage` when it came outside any server. */
export function speakerOf(origin: InboundMessage, directMessage: boolean): Speaker {
  return { userId: origin.authorId, roleIds: origin.authorRoleIds, channelId: origin.channelId, parentChannelId: origin.place?.parentChannelId, directMessage };
}
