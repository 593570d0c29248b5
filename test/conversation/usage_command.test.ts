import { beforeEach, describe, expect, it } from 'vitest';
import type { ConversationDeps } from '../../src/conversation/conversation_deps.js';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import type { InboundMessage } from '../../src/conversation/transport.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import type { UsageOwner, UsageStore } from '../../src/turn_state/usage_store.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import type { ManualClock } from '../support/manual_clock.js';
import type { SeenEvent } from '../support/recording_sink.js';

const DAY = 86_400_000;
const ADMINS = 'permissions:\n  admins: ["admin"]\n';
const LIMITS = 'limits:\n  per_user: { turns_per_hour: 20, tokens_per_day: 100000 }\n  per_channel: { turns_per_hour: 200 }\n  per_turn: { max_tokens: 20000, max_cost: 0.5 }\n';
const LIMITS_HERE = 'Limits here: 20 requests per hour and 100,000 tokens per 24 hours for you; 200 requests per hour for this channel; at most 20,000 tokens and 0.5000 in cost per request.';

/** One model call's tokens and cost, as a turn records them. */
interface Spent {
  readonly input: number;
  readonly output: number;
  readonly cached?: number;
  readonly reasoning?: number;
  readonly cost?: number;
}

describe('/usage: what a person spent, and what an admin may see of others', () => {
  const harness = useConversationHarness();
  let usage: UsageStore;
  let clock: ManualClock;
  let events: SeenEvent[];
  let seeded = 0;
  beforeEach(() => {
    ({ usage, clock } = harness.current.store);
    ({ events } = harness.current);
  });

  const intake = (extraConfig = '', overrides: Partial<ConversationDeps> = {}): Intake => new Intake(harness.current.deps(`${ADMINS}${extraConfig}`, overrides));

  /** A turn of `owner` counted as the intake counts it, and the model calls it made. */
  async function turn(owner: UsageOwner, ...calls: readonly Spent[]): Promise<void> {
    const identity = { source: owner.source, channelId: owner.channelId, messageId: `seeded-${++seeded}` };
    await usage.admit({ identity, owner, limits: [] });
    await usage.record(
      identity,
      owner.userId,
      calls.map((call) => ({ model: 'test-model', inputTokens: call.input, outputTokens: call.output, cachedInputTokens: call.cached, reasoningTokens: call.reasoning, cost: call.cost ?? null })),
    );
  }

  /** A message of `owner` refused by their limit of one turn an hour. */
  async function refused(owner: UsageOwner): Promise<void> {
    const identity = { source: owner.source, channelId: owner.channelId, messageId: `seeded-${++seeded}` };
    expect(await usage.admit({ identity, owner, limits: [{ scope: 'user', kind: 'turns_per_hour', max: 1 }] })).toMatchObject({ kind: 'refused' });
  }

  /** What the bot answered to each of `texts`, asked in turn by `authorId` in `at`'s place (the console's channel `c1` unless told), as notice kind and text. */
  async function ask(bot: Intake, texts: readonly string[], authorId: string, at: Partial<InboundMessage> = {}): Promise<{ notice: string; text: string }[]> {
    const before = events.length;
    for (const text of texts) {
      bot.submit(inboundFromText({ ...harness.current.message(text, authorId), ...at }));
      await bot.idle();
    }
    return events.slice(before).flatMap((e) => (e.type === 'message' && e.kind === 'notice' ? [{ notice: e.notice, text: e.text }] : []));
  }
  const answer = async (bot: Intake, text: string, authorId: string, at: Partial<InboundMessage> = {}): Promise<string> => (await ask(bot, [text], authorId, at))[0]?.text ?? '';

  const onConsole = (userId: string): UsageOwner => ({ source: 'console', userId, channelId: 'c1' });
  const discord = (userId: string, channelId: string, serverId?: string): UsageOwner => ({ source: 'discord', userId, channelId, serverId });
  /** A message said on Discord in channel `channelId` of server `g1`. */
  const inServer = (channelId: string): Partial<InboundMessage> => ({ source: 'discord', channelId, place: { guildId: 'g1' } });

  it('tells a person what they used today and this month — tokens with cached and reasoning, cost, refusals — and the limits on them here', async () => {
    await turn(onConsole('ada'), { input: 1000, output: 200, cached: 400, reasoning: 50, cost: 0.0036 });
    await turn(onConsole('ada'), { input: 500, output: 100, cost: 0.0018 });
    // Elsewhere: another transport, another user.
    await turn(discord('ada', 'd1', 'g1'), { input: 9000, output: 9000, cost: 1 });
    await turn(onConsole('bob'), { input: 7000, output: 7000 });
    await clock.advance(2 * DAY);
    await turn(onConsole('ada'), { input: 2000, output: 300, cost: 0.0064 });
    await refused(onConsole('ada'));

    expect(await ask(intake(LIMITS), ['/usage'], 'ada')).toEqual([
      {
        notice: 'status',
        text: [
          'Your use of the bot:',
          '• Today (UTC): 1 request, 2,300 tokens (2,000 in; 300 out), cost 0.0064, 1 refused by a limit',
          '• This month: 3 requests, 4,100 tokens (3,500 in, 400 of them cached; 600 out, 50 of them reasoning), cost 0.0118, 1 refused by a limit',
          LIMITS_HERE,
        ].join('\n'),
      },
    ]);
    expect(harness.current.fake.requests).toEqual([]);
  });

  it('counts a turn the person just had, its cost priced by llm.prices, and shows no cost for a model without a price', async () => {
    const bot = intake('llm:\n  provider: openai\n  model: test-model\n  prices:\n    test-model: { input: 2, output: 8 }\n');
    harness.current.fake.enqueue(chatText('Milk is white.', { usage: { prompt_tokens: 1000, completion_tokens: 200 } }));
    await ask(bot, ['what colour is milk?'], 'ada');
    expect(harness.current.replies()).toEqual(['Milk is white.']);
    expect(await answer(bot, '/usage', 'ada')).toBe(
      [
        'Your use of the bot:',
        '• Today (UTC): 1 request, 1,200 tokens (1,000 in; 200 out), cost 0.0036',
        '• This month: 1 request, 1,200 tokens (1,000 in; 200 out), cost 0.0036',
        'No limits apply to you here.',
      ].join('\n'),
    );

    harness.current.fake.enqueue(chatText('It is blue.', { usage: { prompt_tokens: 30, completion_tokens: 5 } }));
    const unpriced = intake();
    await ask(unpriced, ['what colour is the sky?'], 'bob');
    expect(await answer(unpriced, '/usage', 'bob')).toBe(
      ['Your use of the bot:', '• Today (UTC): 1 request, 35 tokens (30 in; 5 out)', '• This month: 1 request, 35 tokens (30 in; 5 out)', 'No limits apply to you here.'].join('\n'),
    );
  });

  it('tells a person who used nothing this month so, an admin that admins go past the limits, and counts days from the start of the month', async () => {
    await turn(onConsole('ada'), { input: 10, output: 10 });
    await clock.advance(31 * DAY);
    const bot = intake(LIMITS);
    expect(await answer(bot, '/usage', 'ada')).toBe(`You have not used the bot this month.\n${LIMITS_HERE}`);
    expect(await answer(bot, '/usage', 'admin')).toBe('You have not used the bot this month.\nNo limits apply to you: the bot’s admins are exempt.');
    await turn(onConsole('ada'), { input: 10, output: 10 });
    await clock.advance(DAY);
    expect(await answer(bot, '/usage', 'ada')).toBe(`Your use of the bot:\n• Today (UTC): nothing yet\n• This month: 1 request, 20 tokens (10 in; 10 out)\n${LIMITS_HERE}`);
  });

  it('shows an admin one user’s use, a channel’s and the server’s with the ten largest spenders first, people and channels as Discord names them', async () => {
    await turn(discord('ada', 'c1', 'g1'), { input: 1000, output: 500, cost: 0.01 });
    await turn(discord('ada', 'c1', 'g1'), { input: 1000, output: 500, cost: 0.01 });
    await turn(discord('bob', 'c1', 'g1'), { input: 4000, output: 1000, cost: 0.04 });
    await turn(discord('cid', 'c1', 'g1'), { input: 60, output: 40 });
    for (let n = 1; n <= 11; n += 1) await turn(discord(`u${n}`, 'c2', 'g1'), { input: n * 100, output: 0 });
    // Another server's channel, and the console: neither is this server's.
    await turn(discord('eve', 'c9', 'g2'), { input: 90_000, output: 0 });
    await turn({ source: 'console', userId: 'zed', channelId: 'c1' }, { input: 80_000, output: 0 });
    const bot = intake(LIMITS);

    expect(await answer(bot, '/usage user bob', 'admin', inServer('c1'))).toBe(
      [
        'Use of the bot by <@bob>:',
        '• Today (UTC): 1 request, 5,000 tokens (4,000 in; 1,000 out), cost 0.0400',
        '• This month: 1 request, 5,000 tokens (4,000 in; 1,000 out), cost 0.0400',
        LIMITS_HERE.replace('for you', 'for them'),
      ].join('\n'),
    );
    expect(await answer(bot, '/usage channel', 'admin', inServer('c1'))).toBe(
      [
        'Use of the bot in <#c1>:',
        '• Today (UTC): 4 requests, 8,100 tokens (6,060 in; 2,040 out), cost 0.0600',
        '• This month: 4 requests, 8,100 tokens (6,060 in; 2,040 out), cost 0.0600',
        'Top users this month:',
        '1. <@bob>: 1 request, 5,000 tokens, cost 0.0400',
        '2. <@ada>: 2 requests, 3,000 tokens, cost 0.0200',
        '3. <@cid>: 1 request, 100 tokens',
      ].join('\n'),
    );
    const server = (await answer(bot, '/usage server', 'admin', inServer('c2'))).split('\n');
    expect(server.slice(0, 3)).toEqual([
      'Use of the bot in this server:',
      '• Today (UTC): 15 requests, 14,700 tokens (12,660 in; 2,040 out), cost 0.0600',
      '• This month: 15 requests, 14,700 tokens (12,660 in; 2,040 out), cost 0.0600',
    ]);
    const topUsers = server.slice(server.indexOf('Top users this month:') + 1, server.indexOf('Top channels this month:'));
    expect(topUsers.map((line) => line.split(':')[0])).toEqual(['1. <@bob>', '2. <@ada>', '3. <@u11>', '4. <@u10>', '5. <@u9>', '6. <@u8>', '7. <@u7>', '8. <@u6>', '9. <@u5>', '10. <@u4>']);
    expect(server.slice(server.indexOf('Top channels this month:') + 1)).toEqual(['1. <#c1>: 4 requests, 8,100 tokens, cost 0.0600', '2. <#c2>: 11 requests, 6,600 tokens']);
    // On the console the same commands name people and channels by their ids, and there is no server.
    expect(await answer(bot, '/usage channel c1', 'admin')).toBe(
      [
        'Use of the bot in `c1`:',
        '• Today (UTC): 1 request, 80,000 tokens (80,000 in; 0 out)',
        '• This month: 1 request, 80,000 tokens (80,000 in; 0 out)',
        'Top users this month:',
        '1. `zed`: 1 request, 80,000 tokens',
      ].join('\n'),
    );
    expect(await ask(bot, ['/usage server'], 'admin')).toEqual([{ notice: 'rejected', text: 'There is no server here: `/usage server` works in a server’s channels.' }]);
  });

  it('refuses someone else’s use to anyone but an admin, shows a person their own when they name themselves, and tells an admin how to ask', async () => {
    await turn(onConsole('ada'), { input: 10, output: 10 });
    const bot = intake();
    const refusal = { notice: 'rejected', text: 'Only the bot’s admins can see what others used: `/usage` alone shows what you used.' };
    expect(await ask(bot, ['/usage user bob', '/usage channel', '/usage server', '/usage everything'], 'ada')).toEqual([refusal, refusal, refusal, refusal]);
    expect(await answer(bot, '/usage user ada', 'ada')).toMatch(/^Your use of the bot:\n• Today \(UTC\): 1 request, 20 tokens/);
    expect(await ask(bot, ['/usage user', '/usage channel c1 c2', '/usage server now'], 'admin')).toEqual(
      Array(3).fill({ notice: 'rejected', text: 'Ask for one thing at a time: `/usage` (yours), `/usage user ID`, `/usage channel [ID]` or `/usage server`.' }),
    );
    expect(await answer(bot, '/USAGE   user   ada', 'admin')).toMatch(/^Use of the bot by `ada`:/);
  });

  it('says the usage cannot be read when the store fails, and lists /usage in /help', async () => {
    const bot = intake();
    await harness.current.store.close();
    expect(await ask(bot, ['/usage'], 'ada')).toEqual([{ notice: 'failed', text: 'Usage cannot be read right now. Try again in a moment.' }]);
    expect(await answer(bot, '/help', 'ada')).toContain('\n• `/usage`: what you used today and this month, and the limits on you here\n');
    expect(await answer(bot, '/help', 'admin')).toContain(
      '\nAdmins: `/usage user ID`, `/usage channel [ID]` or `/usage server` shows what a user, a channel or this server used, with the ten largest spenders this month.',
    );
  });
});
