import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { configProblems } from '../support/config_problems.js';

describe('access', () => {
  it('lets everyone in everywhere by default, direct messages included', () => {
    expect(parseConfigText('', 'c.yml', {}).access).toEqual({ users: { allow: [], deny: [] }, roles: { allow: [], deny: [] }, channels: { allow: [], deny: [] }, allow_dms: true });
    const set = parseConfigText('access:\n  users:\n    deny: ["42"]\n  allow_dms: false\n', 'c.yml', {}).access;
    expect(set).toMatchObject({ users: { allow: [], deny: ['42'] }, roles: { allow: [], deny: [] }, allow_dms: false });
  });

  it('refuses unquoted ids, an empty id, a list that is no list and an unknown key, naming each', () => {
    const text = `access:
  users:
    allow: [123456789012345678]
  roles:
    deny: [""]
  channels:
    allow: "1"
  allow_dm: false
`;
    expect(configProblems(text)).toEqual([
      'c.yml:3:13: access.users.allow[0]: expected a string, got 123456789012345680',
      'c.yml:5:12: access.roles.deny[0]: Too small: expected string to have >=1 characters; got ""',
      'c.yml:7:12: access.channels.allow: expected a list, got "1"',
      'c.yml:8:3: access.allow_dm: unknown key (expected one of: users, roles, channels, allow_dms)',
    ]);
  });
});
