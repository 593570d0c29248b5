import { z } from 'zod';
import { ids } from '../config/schema_parts.js';

const toolRuleSchema = z
  .strictObject({
    allow_users: ids('Only these users may use the tool (with allow_roles: users matching either)'),
    allow_roles: ids('Only members with one of these roles may use the tool'),
    allow_channels: ids('The tool may be used only in these channels'),
    deny_users: ids('These users may never use the tool'),
    deny_roles: ids('Members with one of these roles may never use the tool'),
    deny_channels: ids('The tool is never offered in these channels'),
  })
  .describe('Who may use one tool, and where; a deny always wins.');

/** The `permissions` section. */
export const permissionsSection = z
  .strictObject({
    admins: ids('Users who may use every tool, stop anyone’s turn, pick a channel’s model with /model, and use /turns and /resolve on Discord'),
    tools: z.record(z.string(), toolRuleSchema).default({}).describe('Rules per tool name; a tool without rules is offered to everyone.'),
  })
  .describe('Who may use which tool.');

/** The validated section, defaults filled in. */
export type PermissionsSettings = z.output<typeof permissionsSection>;
