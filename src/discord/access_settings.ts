import { z } from 'zod';
import { ids } from '../config/schema_parts.js';

/** One allow list and one deny list of ids. */
const allowDeny = (what: string, allow: string, deny: string) =>
  z
    .strictObject({
      allow: ids(allow),
      deny: ids(deny),
    })
    .prefault({})
    .describe(`Which ${what} the bot answers; a deny always wins.`);

/** The `access` section: who may talk to the bot on Discord, and where. */
export const accessSection = z
  .strictObject({
    users: allowDeny('users', 'Only these users, and members of `roles.allow`, are answered; empty: everyone', 'These users are never answered'),
    roles: allowDeny('roles', 'Only members with one of these roles, and `users.allow`, are answered; empty: everyone', 'Members with one of these roles are never answered'),
    channels: allowDeny('channels', 'The bot answers only in these channels and their threads; empty: everywhere', 'The bot never answers in these channels or their threads'),
    allow_dms: z.boolean().default(true).describe('Whether the bot answers direct messages.'),
  })
  .describe(
    'Who may talk to the bot on Discord, and where. A message from anyone else is ignored without a reply; a slash ' +
      'command gets a refusal only its user sees. A deny always wins; `permissions.admins` are always answered.',
  );

/** The validated section, defaults filled in. */
export type AccessSettings = z.output<typeof accessSection>;
