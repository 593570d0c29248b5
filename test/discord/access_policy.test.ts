import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/app/config_schema.js';
import { AccessPolicy, type AccessRefusal, type Speaker } from '../../src/discord/access_policy.js';

const config = parseConfigText(
  `permissions:
  admins: ["900"]
access:
  users:
    allow: ["100"]
    deny: ["101"]
  roles:
    allow: ["helper"]
    deny: ["muted"]
  channels:
    allow: ["help", "lobby", "thread-9"]
    deny: ["lobby"]
  allow_dms: false
`,
  'c.yml',
  {},
);
const policy = new AccessPolicy(config.access, config.permissions);

const inChannel = (userId: string, channelId: string, ...roleIds: string[]): Speaker => ({ userId, roleIds, channelId, parentChannelId: undefined, directMessage: false });
const inThread = (userId: string, threadId: string, parentChannelId: string): Speaker => ({ userId, roleIds: [], channelId: threadId, parentChannelId, directMessage: false });
const direct = (userId: string): Speaker => ({ userId, roleIds: [], channelId: 'dm', parentChannelId: undefined, directMessage: true });

describe('AccessPolicy', () => {
  it.each<[string, Speaker, AccessRefusal | undefined]>([
    ['an allowed user in an allowed channel is answered', inChannel('100', 'help'), undefined],
    ['a member of an allowed role is answered', inChannel('7', 'help', 'helper'), undefined],
    ['someone neither allowed nor in an allowed role is not', inChannel('7', 'help', 'other'), 'not_an_allowed_person'],
    ['a denied user is not, even holding an allowed role', inChannel('101', 'help', 'helper'), 'user_denied'],
    ['a denied role wins over an allowed user', inChannel('100', 'help', 'muted'), 'role_denied'],
    ['a denied channel wins over its allow entry', inChannel('100', 'lobby'), 'channel_denied'],
    ['a channel not allowed is refused', inChannel('100', 'random'), 'not_an_allowed_channel'],
    ['a thread of an allowed channel is answered', inThread('100', 'thread-1', 'help'), undefined],
    ['a thread of a denied channel is not', inThread('100', 'thread-2', 'lobby'), 'channel_denied'],
    ['a thread allowed by its own id is answered', inThread('100', 'thread-9', 'random'), undefined],
    ['a direct message is refused with allow_dms off', direct('100'), 'direct_messages_off'],
    ['an admin is answered anywhere, even unlisted, in a denied channel or a direct message', inChannel('900', 'lobby', 'muted'), undefined],
    ['an admin’s direct message is answered', direct('900'), undefined],
  ])('%s', (_case, speaker, expected) => {
    expect(policy.refusal(speaker)).toBe(expected);
  });

  it('answers direct messages when they are allowed, without the channel lists, and with no roles only to allowed users', () => {
    const open = parseConfigText('access:\n  roles:\n    allow: ["helper"]\n  users:\n    allow: ["100"]\n  channels:\n    allow: ["help"]\n', 'c.yml', {});
    const dms = new AccessPolicy(open.access, open.permissions);
    expect(dms.refusal(direct('100'))).toBeUndefined();
    expect(dms.refusal(direct('7'))).toBe('not_an_allowed_person');
  });

  describe('with only one of the two allow lists naming anyone', () => {
    const only = (yaml: string): AccessPolicy => {
      const parsed = parseConfigText(yaml, 'c.yml', {});
      return new AccessPolicy(parsed.access, parsed.permissions);
    };
    const usersOnly = only('access:\n  users:\n    allow: ["100"]\n');
    const rolesOnly = only('access:\n  roles:\n    allow: ["helper"]\n');

    it.each<[string, AccessPolicy, Speaker, AccessRefusal | undefined]>([
      ['users.allow alone: the listed user is answered', usersOnly, inChannel('100', 'random'), undefined],
      ['users.allow alone: anyone else is not, whatever their roles', usersOnly, inChannel('7', 'random', 'helper'), 'not_an_allowed_person'],
      ['users.allow alone: an unlisted user’s direct message is not', usersOnly, direct('7'), 'not_an_allowed_person'],
      ['roles.allow alone: a member holding the role is answered', rolesOnly, inChannel('7', 'random', 'helper'), undefined],
      ['roles.allow alone: a member without it is not', rolesOnly, inChannel('7', 'random', 'other'), 'not_an_allowed_person'],
      ['roles.allow alone: a direct message, which carries no roles, is not', rolesOnly, direct('7'), 'not_an_allowed_person'],
    ])('%s', (_case, access, speaker, expected) => {
      expect(access.refusal(speaker)).toBe(expected);
    });
  });

  it('lets everyone in everywhere with the defaults', () => {
    const defaults = parseConfigText('', 'c.yml', {});
    const everyone = new AccessPolicy(defaults.access, defaults.permissions);
    expect([inChannel('7', 'random'), inThread('7', 't', 'c'), direct('7')].map((speaker) => everyone.refusal(speaker))).toEqual([undefined, undefined, undefined]);
  });
});
