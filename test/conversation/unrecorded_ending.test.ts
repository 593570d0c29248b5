import { describe, expect, it } from 'vitest';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { sse } from '../support/fake_llm/server.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import { deferred } from '../support/deferred.js';
import { storedTurn } from '../support/stored_rows.js';
import { openTurnStoreFile } from '../support/turn_store.js';

describe('an ending the store could not record', () => {
  const harness = useConversationHarness();

  it('is told as such, promising nothing and announcing no status, and the next start finds the turn interrupted', async () => {
    const { fake, store } = harness.current;
    const release = deferred();
    fake.enqueue({
      kind: 'stream',
      chunks: [sse({ choices: [{ index: 0, delta: { content: 'Hel' } }] }), release.promise, sse({ choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: 'stop' }] }), 'data: [DONE]\n\n'],
    });
    fake.enqueue(chatText('never asked'));
    const bot = new Intake(harness.current.deps());
    const message = harness.current.message('hello');
    bot.submit(inboundFromText(message));
    await fake.whenRequests(1);
    await store.close();
    release.resolve();
    await bot.idle();

    const told = harness.current.events.filter((e) => e.type === 'message' || e.type === 'turn');
    expect(told.map((e) => (e.type === 'turn' ? e.status : e.kind === 'notice' ? e.notice : e.kind))).toEqual(['ACTIVE', 'failed']);
    expect(told.at(-1)).toMatchObject({ text: expect.stringMatching(/could not record how this request ended/) as unknown });
    expect(told.at(-1)).not.toMatchObject({ text: expect.stringMatching(/try again|resume/i) as unknown });
    expect(storedTurn(store.dbPath, { source: 'console', channelId: 'c1', messageId: message.messageId })?.status).toBe('ACTIVE');

    const reopened = openTurnStoreFile(store.dbPath, { clock: store.clock });
    expect((await reopened.sweepOnStartup()).suspendedTurns).toBe(1);
    await reopened.close();
    expect(storedTurn(store.dbPath, { source: 'console', channelId: 'c1', messageId: message.messageId })?.status).toBe('SUSPENDED');
  });
});
