import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { mayUseTool, permittedTools, type Requester } from '../../src/tools/permissions.js';
import type { Tool } from '../../src/tools/tool.js';

const permissions = parseConfigText(
  `permissions:
  admins: ["900"]
  tools:
    deploy:
      allow_users: ["100"]
      allow_roles: ["ops"]
      deny_users: ["101"]
    web_fetch:
      deny_channels: ["quiet"]
    remember:
      allow_channels: ["notes", "dm-1"]
      deny_roles: ["muted"]
`,
  'c.yml',
  {},
).permissions;

const person = (userId: string, ...roleIds: string[]): Requester => ({ userId, roleIds });

describe('mayUseTool', () => {
  it.each<[string, string, Requester, string, boolean]>([
    ['a tool without rules is open to everyone', 'recall', person('1'), 'general', true],
    ['an admin may use a tool whose rules exclude them', 'deploy', person('900'), 'general', true],
    ['an admin may use a tool in a denied channel', 'web_fetch', person('900'), 'quiet', true],
    ['an allowed user may', 'deploy', person('100'), 'general', true],
    ['a member of an allowed role may', 'deploy', person('7', 'ops'), 'general', true],
    ['anyone else may not', 'deploy', person('7', 'dev'), 'general', false],
    ['a denied user may not, even holding an allowed role', 'deploy', person('101', 'ops'), 'general', false],
    ['a denied channel refuses everyone but admins', 'web_fetch', person('1'), 'quiet', false],
    ['other channels stay open', 'web_fetch', person('1'), 'general', true],
    ['an allowed channel admits', 'remember', person('1'), 'notes', true],
    ['a channel not allowed refuses', 'remember', person('1'), 'general', false],
    ['a denied role refuses even in an allowed channel', 'remember', person('1', 'muted'), 'notes', false],
  ])('%s', (_case, tool, requester, channel, expected) => {
    expect(mayUseTool(permissions, tool, requester, channel)).toBe(expected);
  });
});

describe('permittedTools', () => {
  it('offers only the tools the requester may use here, in catalog order', () => {
    const tool = (name: string): Tool => ({
      name,
      description: name,
      inputSchema: { type: 'object' },
      effect: 'read',
      timeoutMs: 1_000,
      execute: () => Promise.resolve({ kind: 'result', text: '' }),
    });
    const tools = ['deploy', 'web_fetch', 'remember', 'recall'].map(tool);
    expect(permittedTools(tools, permissions, person('1'), 'quiet').map((t) => t.name)).toEqual(['recall']);
    expect(permittedTools(tools, permissions, person('100'), 'notes').map((t) => t.name)).toEqual(['deploy', 'web_fetch', 'remember', 'recall']);
  });
});
