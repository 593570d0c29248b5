import { beforeEach, describe, expect, it } from 'vitest';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import type { ConversationDeps } from '../../src/conversation/conversation_deps.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import type { HistoryStore } from '../../src/turn_state/history_store.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../support/fake_llm/server.js';
import { LEVEL, LogLines } from '../support/log_lines.js';
import { useConversationHarness, withoutDurability, type ConversationHarness } from '../support/conversation_harness.js';

/**
 * With durability off (DESIGN §7.3) nothing rides with a turn's writes, which keep nothing: the
 * history, the usage and the limits are written by themselves, to the stores that keep what they can.
 */
describe('a turn when no durable store could open', () => {
  const harness = useConversationHarness();
  let fake: FakeLLMServer;
  let parts: ConversationHarness;
  beforeEach(() => {
    parts = harness.current;
    fake = parts.fake;
  });

  const intake = (extraConfig = '', overrides: Partial<ConversationDeps> = {}): Intake => new Intake(parts.deps(extraConfig, { ...withoutDurability(), ...overrides }));
  const submitted = async (bot: Intake, text: string): Promise<void> => {
    bot.submit(inboundFromText(parts.message(text)));
    await bot.idle();
  };

  it('adds the message and the reply to the history and counts the call’s tokens by themselves', async () => {
    fake.enqueue(chatText('Hello, Ada.', { usage: { prompt_tokens: 300, completion_tokens: 20 } }));
    await submitted(intake(), 'hello');
    expect(parts.replies()).toEqual(['Hello, Ada.']);
    expect((await parts.store.history.read('console:c1')).entries.map((entry) => [entry.role, entry.text])).toEqual([
      ['user', 'hello'],
      ['assistant', 'Hello, Ada.'],
    ]);
    expect((await parts.store.usage.report({ period: { kind: 'today' } }))[0]).toMatchObject({ inputTokens: 300, outputTokens: 20 });
  });

  it('answers all the same when the usage of its call cannot be kept', async () => {
    fake.enqueue(chatText('Hello, Ada.', { usage: { prompt_tokens: 300, completion_tokens: 20 } }));
    const usage = { ...parts.store.usage, record: () => Promise.reject(new Error('disk I/O error')) };
    await submitted(intake('', { usage }), 'hello');
    expect(parts.replies()).toEqual(['Hello, Ada.']);
  });

  it('refuses a message past a limit by itself, asking no model', async () => {
    fake.enqueue(chatText('Hello, Ada.'));
    const bot = intake('limits:\n  per_user: { turns_per_hour: 1 }\n');
    await submitted(bot, 'hello');
    await submitted(bot, 'and again');
    expect(parts.notices()).toEqual(['limited']);
    expect(fake.requests).toHaveLength(1);
  });

  it('ends a turn whose request cannot join the history TERMINAL_FAILED, told and logged with its channel', async () => {
    const log = new LogLines('info');
    const real = parts.store.history;
    const history: HistoryStore = { ...real, read: (channel) => real.read(channel), revision: (channel) => real.revision(channel), append: () => Promise.reject(new Error('database is locked')) };
    await submitted(intake('', { history, logger: log.logger }), 'hello');
    expect(parts.notices()).toEqual(['failed']);
    expect(parts.events).toContainEqual(expect.objectContaining({ type: 'turn', status: 'TERMINAL_FAILED' }));
    expect(log.lines.filter((line) => line.level >= LEVEL.error)).toEqual([
      expect.objectContaining({ level: 50, channel: 'c1', err: expect.objectContaining({ message: 'database is locked' }) as unknown }),
    ]);
    expect(fake.requests).toHaveLength(0);
  });
});
