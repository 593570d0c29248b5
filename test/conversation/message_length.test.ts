import { describe, expect, it } from 'vitest';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import { loadHistory } from '../../src/conversation/history/history_policy.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { storedTurn } from '../support/stored_rows.js';

describe('the longest message the bot takes', () => {
  const harness = useConversationHarness();

  const noticeTexts = (): string[] => harness.current.events.flatMap((e) => (e.type === 'message' && e.kind === 'notice' ? [e.text] : []));

  it('rejects a message over 32,000 characters by default, naming the limit, and neither sends nor keeps it', async () => {
    const { fake, store } = harness.current;
    fake.enqueue(chatText('Read it.'));
    const bot = new Intake(harness.current.deps());
    const tooLong = harness.current.message('a'.repeat(32_001), 'ada', 'long');
    bot.submit(inboundFromText(tooLong));
    await bot.idle();
    expect(harness.current.notices()).toEqual(['rejected']);
    expect(noticeTexts()[0]).toContain('32000 characters');
    expect(fake.requests).toEqual([]);
    expect(storedTurn(store.dbPath, { source: 'console', channelId: 'c1', messageId: 'long' })).toBeUndefined();
    expect((await loadHistory(store.history, 'console:c1')).messages).toEqual([]);

    bot.submit(inboundFromText(harness.current.message('b'.repeat(32_000), 'ada', 'at-limit')));
    await bot.idle();
    expect(harness.current.replies()).toEqual(['Read it.']);
    expect(fake.requests).toHaveLength(1);
  });

  it('follows chat.max_message_chars, whatever the line would have been taken for', async () => {
    const { fake, store } = harness.current;
    fake.enqueue(chatText('Read it.'), chatText('Read that too.'));
    const bot = new Intake(harness.current.deps('chat:\n  max_message_chars: 10\n'));
    bot.submit(inboundFromText(harness.current.message('eleven char')));
    bot.submit(inboundFromText(harness.current.message('resume 0123456789')));
    await bot.idle();
    expect(harness.current.notices()).toEqual(['rejected', 'rejected']);
    expect(noticeTexts().every((text) => text.includes('10 characters'))).toBe(true);
    expect(fake.requests).toEqual([]);
    expect((await loadHistory(store.history, 'console:c1')).messages).toEqual([]);
  });
});
