import { describe, expect, it } from 'vitest';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { useConversationHarness } from '../support/conversation_harness.js';

const PRICED = 'llm:\n  model: test-model\n  prices:\n    test-model: { input: 10, cached_input: 1, output: 40 }\n';

describe('limits on what the bot spends, in the conversation', () => {
  const harness = useConversationHarness();

  const noticeTexts = (): string[] => harness.current.events.flatMap((e) => (e.type === 'message' && e.kind === 'notice' ? [e.text] : []));

  it('refuses by the channel’s and the server’s limits across users, naming whose limit it is', async () => {
    const { fake } = harness.current;
    fake.enqueue(chatText('One.'));
    const bot = new Intake(harness.current.deps('limits:\n  per_channel: { turns_per_hour: 1 }\n  per_server: { tokens_per_day: 500 }\n'));
    const inGuild = (text: string, authorId: string, channelId: string) => ({ ...harness.current.message(text, authorId), channelId, place: { guildId: 'g1' } });

    bot.submit(inboundFromText(inGuild('first', 'ada', 'c1')));
    await bot.idle();
    bot.submit(inboundFromText(inGuild('second', 'bob', 'c1')));
    await bot.idle();
    expect(noticeTexts()).toEqual([expect.stringMatching(/^This channel has reached its limit of 1 request per hour, so I did not start on this message\. You can ask again at /)]);

    fake.enqueue(chatText('Long.', { usage: { prompt_tokens: 450, completion_tokens: 60 } }));
    bot.submit(inboundFromText(inGuild('third', 'bob', 'c2')));
    await bot.idle();
    bot.submit(inboundFromText(inGuild('fourth', 'cy', 'c3')));
    await bot.idle();
    expect(noticeTexts()[1]).toMatch(/^This server has reached its limit of 500 tokens per 24 hours, so I did not start on this message\./);
    expect(harness.current.replies()).toEqual(['One.', 'Long.']);
  });

  it('stops a turn at per_turn.max_cost by llm.prices, the cached input priced apart, and says so', async () => {
    const { fake } = harness.current;
    const usage = { prompt_tokens: 1000, completion_tokens: 250 };
    fake.enqueue(...Array.from({ length: 5 }, (_, index) => chatToolCalls([{ id: `c${index}`, name: 'lookup', args: `{"word":"w${index}"}` }], { usage })));
    const bot = new Intake(harness.current.deps(`${PRICED}limits:\n  per_turn: { max_cost: 0.05 }\n`));

    bot.submit(inboundFromText(harness.current.message('look everything up')));
    await bot.idle();

    // Each call costs 1,000 × 10 + 250 × 40 per million = 0.02: the third reaches 0.05.
    expect(fake.requests).toHaveLength(3);
    expect(harness.current.notices()).toEqual(['limited']);
    expect(noticeTexts()[0]).toMatch(/^I stopped this request before asking the model again: it reached its limit of 0\.0500 in cost per request \(0\.0600 spent\)\./);
  });

  it('counts a turn’s earlier runs against per_turn.max_tokens, and lists at most ten of its calls', async () => {
    const { fake, store } = harness.current;
    const usage = { prompt_tokens: 10, completion_tokens: 5 };
    fake.enqueue(...Array.from({ length: 12 }, (_, index) => chatToolCalls([{ id: `c${index}`, name: 'lookup', args: `{"word":"w${index}"}` }], { usage })));
    await store.usage.record({ source: 'console', channelId: 'c1', messageId: 'm-1' }, 'ada', [{ model: 'test-model', inputTokens: 20, outputTokens: 0, cost: null }]);
    const bot = new Intake(harness.current.deps('limits:\n  per_turn: { max_tokens: 200 }\n'));

    bot.submit(inboundFromText(harness.current.message('look everything up')));
    await bot.idle();

    // 20 tokens before this run, then 15 a call: the twelfth call brings it to 200.
    expect(fake.requests).toHaveLength(12);
    const lines = (noticeTexts()[0] ?? '').split('\n');
    expect(lines[0]).toContain('its limit of 200 tokens per request (200 spent)');
    expect(lines.slice(1)).toHaveLength(11);
    expect(lines.at(-1)).toBe('…and 2 more calls.');
  });
});
