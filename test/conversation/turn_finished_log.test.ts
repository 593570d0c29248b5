import { beforeEach, describe, expect, it } from 'vitest';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import type { ConversationDeps } from '../../src/conversation/conversation_deps.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import { anthropicText, anthropicToolUse } from '../support/fake_llm/anthropic.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { llmConfig, testProvider } from '../support/fake_llm/provider.js';
import type { FakeLLMServer, FakeStep } from '../support/fake_llm/server.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { LEVEL, LogLines } from '../support/log_lines.js';
import { runToCompletion } from '../support/recovery_runtime.js';

const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } };
const lookupMilk = { id: 'c1', name: 'lookup', args: '{"word":"milk"}' };

describe('the turn finished line', () => {
  const harness = useConversationHarness();
  let fake: FakeLLMServer;
  let log: LogLines;
  beforeEach(() => {
    ({ fake } = harness.current);
    log = new LogLines('info');
  });

  const intake = (overrides: Partial<ConversationDeps> = {}): Intake => new Intake(harness.current.deps('turn_state:\n  auto_resume: false\n', { logger: log.logger, ...overrides }));
  const settle = (bot: Intake): Promise<void> => runToCompletion(harness.current.recoveryClock, bot.idle());
  const turnIds = (): string[] => [...new Set(harness.current.events.flatMap((event) => (event.type === 'turn' ? [event.turn] : [])))];

  it('reports each finished turn once at INFO: who asked where, how it ended, how long it took, and what it used', async () => {
    harness.current.target.onRequest = () => harness.current.store.clock.advance(1_500);
    fake.enqueue(overloaded, chatToolCalls([lookupMilk]), chatText('Milk is a drink.', { usage: { prompt_tokens: 30, completion_tokens: 7 } }));
    const bot = intake();
    bot.submit(inboundFromText(harness.current.message('look up milk', 'ada')));
    await settle(bot);

    expect(log.withMessage('turn finished')).toEqual([
      {
        level: LEVEL.info,
        time: expect.any(Number) as unknown,
        pid: expect.any(Number) as unknown,
        hostname: expect.any(String) as unknown,
        msg: 'turn finished',
        turn: turnIds()[0],
        channel: 'c1',
        requester: 'ada',
        status: 'TERMINAL_COMPLETED',
        durationMs: 1_500,
        modelAttempts: 3,
        toolCalls: 1,
        inputTokens: 30,
        outputTokens: 7,
      },
    ]);
  });

  it('counts Anthropic’s prompt-cache tokens into the input and reports them apart', async () => {
    fake.enqueue(
      anthropicToolUse([lookupMilk], { inputTokens: 10, cacheReadTokens: 100, cacheWriteTokens: 20, outputTokens: 5 }),
      anthropicText('Milk is a drink.', { inputTokens: 15, cacheReadTokens: 120, cacheWriteTokens: 0, outputTokens: 8 }),
    );
    const bot = intake({ provider: testProvider(llmConfig('anthropic', fake.baseUrl)) });
    bot.submit(inboundFromText(harness.current.message('look up milk')));
    await settle(bot);

    expect(log.withMessage('turn finished')).toMatchObject([
      { level: LEVEL.info, status: 'TERMINAL_COMPLETED', modelAttempts: 2, toolCalls: 1, inputTokens: 265, outputTokens: 13, cacheReadTokens: 220, cacheWriteTokens: 20 },
    ]);
  });

  it('reports a suspension, and a resumed run with only the attempts and calls it made itself', async () => {
    fake.enqueue(chatToolCalls([lookupMilk]), ...Array.from({ length: 9 }, () => overloaded));
    const bot = intake();
    bot.submit(inboundFromText(harness.current.message('look up milk')));
    await settle(bot);
    const firstRunAttempts = fake.requests.length;
    await harness.current.recoveryClock.advance(5_000);
    fake.enqueue(chatText('Milk is a drink.', { usage: { prompt_tokens: 40, completion_tokens: 6 } }));
    bot.submit(inboundFromText(harness.current.message('resume')));
    await settle(bot);

    const [turn] = turnIds();
    expect(firstRunAttempts).toBeGreaterThan(2);
    expect(log.withMessage('turn finished')).toMatchObject([
      { turn, status: 'SUSPENDED', modelAttempts: firstRunAttempts, toolCalls: 1, inputTokens: null, outputTokens: null },
      { turn, status: 'TERMINAL_COMPLETED', modelAttempts: 1, toolCalls: 0, inputTokens: 40, outputTokens: 6 },
    ]);
  });
});
