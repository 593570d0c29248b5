import type { PermissionsSettings } from './permissions_settings.js';
import type { Tool } from './tool.js';

/** Who is asking: their user id and, on a server, the ids of their roles. */
export interface Requester {
  readonly userId: string;
  readonly roleIds: readonly string[];
}

type Permissions = PermissionsSettings;

/** Whether the user is one of `permissions.admins`. */
export function isAdmin(permissions: Permissions, userId: string): boolean {
  return permissions.admins.includes(userId);
}

/**
 * Whether `requester` may use `toolName` in `channelId`. Admins may use every tool. A deny of the
 * user, one of their roles or the channel always wins. Then, if the rule names users or roles,
 * the requester must be one of those users or hold one of those roles; if it names channels, the
 * channel must be one of them. A tool without a rule is open to everyone.
 */
export function mayUseTool(permissions: Permissions, toolName: string, requester: Requester, channelId: string): boolean {
  if (isAdmin(permissions, requester.userId)) return true;
  const rule = permissions.tools[toolName];
  if (rule === undefined) return true;
  const hasRole = (roles: readonly string[]): boolean => requester.roleIds.some((role) => roles.includes(role));
  if (rule.deny_users.includes(requester.userId) || hasRole(rule.deny_roles) || rule.deny_channels.includes(channelId)) return false;
  const namesPeople = rule.allow_users.length > 0 || rule.allow_roles.length > 0;
  if (namesPeople && !rule.allow_users.includes(requester.userId) && !hasRole(rule.allow_roles)) return false;
  return rule.allow_channels.length === 0 || rule.allow_channels.includes(channelId);
}

/** The tools `requester` may use in `channelId`, in catalog order: the only ones offered to the model. */
export function permittedTools(tools: readonly Tool[], permissions: Permissions, requester: Requester, channelId: string): Tool[] {
  return tools.filter((tool) => mayUseTool(permissions, tool.name, requester, channelId));
}
