import { describe, expect, it } from 'vitest';
import { discordConfigYaml, posts, replyTo, say } from '../support/discord_bot.js';
import { useDiscordWorld } from '../support/discord_world.js';
import type { CommandOptionJson } from '../support/fake_discord/server.js';
import { chatText } from '../support/fake_llm/openai_chat.js';

/** A member of the guild who is not one of `permissions.admins`. */
const MEMBER = '1100000000000000042';

describe('/usage on Discord', { timeout: 60_000 }, () => {
  const world = useDiscordWorld();

  /** Starts the bot with a price for its model and the world's user as its one admin; resolves once it is connected. */
  async function started(): Promise<void> {
    const yaml = discordConfigYaml(world.discord, world.fake.baseUrl, `permissions:\n  admins: ['${world.discord.world.user.id}']\nlimits:\n  per_user: { turns_per_hour: 20 }\n`).replace(
      '  model: test-model\n',
      '  model: test-model\n  prices:\n    test-model: { input: 2, output: 8 }\n',
    );
    await world.start(yaml).logged('connected to Discord');
  }

  /** Uses `/usage` (by the world's user, an admin, unless told); resolves with its answer and how it was sent, once Discord was told it is for its user alone. */
  async function usage(options: readonly CommandOptionJson[] = [], userId?: string): Promise<{ content: string; allowed_mentions?: unknown }> {
    const sent = await world.discord.dispatchInteraction({ name: 'usage', options, ...(userId === undefined ? {} : { userId }) });
    const ack = await world.discord.whenRequest((r) => r.method === 'POST' && r.path === `/interactions/${sent.id}/${sent.token}/callback`);
    expect(ack.body).toEqual({ type: 5, data: { flags: 64 } });
    const answer = await world.discord.whenRequest((r) => r.method === 'PATCH' && r.path.endsWith(`/${sent.token}/messages/@original`));
    return answer.body as { content: string; allowed_mentions?: unknown };
  }

  /** `userId` asks the bot something in the world's channel and is answered; the model reports 1,000 tokens in and 200 out. */
  async function asks(userId: string): Promise<void> {
    world.fake.enqueue(chatText('Answered.', { usage: { prompt_tokens: 1000, completion_tokens: 200 } }));
    await replyTo(world.discord, await say(world.discord, 'what is new?', userId));
  }

  it('registers /usage for everyone with its admins’ options, and answers a member with their own use and limits, to them alone', async () => {
    await started();
    const registered = world.discord.requests.find((r) => r.method === 'PUT' && r.path.endsWith('/commands'));
    const command = (registered?.body as { name: string; default_member_permissions?: string; options?: unknown[] }[]).find((c) => c.name === 'usage');
    expect(command).toMatchObject({
      options: [
        { name: 'user', type: 6, required: false },
        { name: 'channel', type: 7, required: false },
        { name: 'server', type: 5, required: false },
      ],
    });
    expect(command?.default_member_permissions).toBeUndefined();

    await asks(MEMBER);
    expect((await usage([], MEMBER)).content).toBe(
      [
        'ℹ️ Your use of the bot:',
        '• Today (UTC): 1 request, 1,200 tokens (1,000 in; 200 out), cost 0.0036',
        '• This month: 1 request, 1,200 tokens (1,000 in; 200 out), cost 0.0036',
        'Limits here: 20 requests per hour for you.',
      ].join('\n'),
    );
    // The answer went to the member alone: the channel saw only the reply.
    expect(posts(world.discord).map((post) => post.content)).toEqual(['Answered.']);
  });

  it('shows an admin a member’s use, the channel’s and the server’s, naming them without pinging anyone, and refuses those options to a member', async () => {
    await started();
    const { channelId, user } = world.discord.world;
    await asks(MEMBER);
    await asks(MEMBER);
    await asks(user.id);

    const member = await usage([{ name: 'user', type: 6, value: MEMBER }]);
    expect(member.content).toMatch(new RegExp(`^ℹ️ Use of the bot by <@${MEMBER}>:\\n• Today \\(UTC\\): 2 requests, 2,400 tokens`));
    expect(member.allowed_mentions).toMatchObject({ parse: [] });
    const channel = (await usage([{ name: 'channel', type: 7, value: channelId }])).content.split('\n');
    expect(channel[0]).toBe(`ℹ️ Use of the bot in <#${channelId}>:`);
    expect(channel.slice(-3)).toEqual(['Top users this month:', `1. <@${MEMBER}>: 2 requests, 2,400 tokens, cost 0.0072`, `2. <@${user.id}>: 1 request, 1,200 tokens, cost 0.0036`]);
    expect((await usage([{ name: 'server', type: 5, value: true }])).content).toContain(`\nTop channels this month:\n1. <#${channelId}>: 3 requests, 3,600 tokens, cost 0.0108`);
    expect(
      (
        await usage([
          { name: 'user', type: 6, value: MEMBER },
          { name: 'server', type: 5, value: true },
        ])
      ).content,
    ).toBe('ℹ️ Ask for one thing at a time: `/usage` (yours), `/usage user:@name`, `channel:#channel` or `server:True`.');

    expect((await usage([{ name: 'server', type: 5, value: true }], MEMBER)).content).toBe('ℹ️ Only the bot’s admins can see what others used: `/usage` alone shows what you used.');
    expect(posts(world.discord).map((post) => post.content)).toEqual(['Answered.', 'Answered.', 'Answered.']);
  });
});
