import { beforeEach, describe, expect, it } from 'vitest';
import { loadHistory } from '../../src/conversation/history/history_policy.js';
import type { HistoryStore } from '../../src/turn_state/history_store.js';
import type { ConversationDeps } from '../../src/conversation/conversation_deps.js';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import type { InboundMessage } from '../../src/conversation/transport.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { type FakeLLMServer, type FakeStep, sse } from '../support/fake_llm/server.js';
import { useConversationHarness } from '../support/conversation_harness.js';
import type { SeenEvent } from '../support/recording_sink.js';
import { startingWith } from '../support/turn_store.js';

const stall = { kind: 'stream' as const, chunks: [sse({ choices: [{ index: 0, delta: { content: 'Working' } }] })], then: 'stall' as const };

describe('the intake pipeline', () => {
  const harness = useConversationHarness();
  let fake: FakeLLMServer;
  let store: TurnStore;
  let history: HistoryStore;
  let events: SeenEvent[];
  beforeEach(() => {
    ({ fake, events } = harness.current);
    ({ turns: store, history } = harness.current.store);
  });

  const intake = (overrides: Partial<ConversationDeps> = {}, extraConfig = 'chat:\n  max_queued_per_channel: 1\npermissions:\n  admins: ["admin"]\n'): Intake =>
    new Intake(harness.current.deps(extraConfig, overrides));
  const message = (text: string, authorId?: string, messageId?: string): InboundMessage => harness.current.message(text, authorId, messageId);
  const notices = (): string[] => harness.current.notices();
  const replies = (): string[] => harness.current.replies();

  it('answers /help and an unknown /command itself, the admins’ commands listed to an admin alone, and asks the model nothing', async () => {
    const bot = intake();
    bot.submit(inboundFromText(message('/help')));
    bot.submit(inboundFromText(message('/help', 'admin')));
    bot.submit(inboundFromText(message('/frobnicate now')));
    await bot.idle();
    const [member, admin, unknown] = events.flatMap((e) => (e.type === 'message' && e.kind === 'notice' ? [e] : []));
    expect(member).toMatchObject({ notice: 'status', text: expect.stringMatching(/^Commands:\n• `\/help`: this list\n/) as unknown });
    expect(member?.text).not.toMatch(/Admins:/);
    expect(admin?.text).toMatch(/\nAdmins: `\/model` lists the models used here/);
    expect(unknown).toMatchObject({ notice: 'rejected', text: 'Unknown command `/frobnicate` — /help lists them.' });
    expect(fake.requests).toEqual([]);
  });

  it('answers, keeps the exchange in the history, and never runs the same message twice', async () => {
    fake.enqueue(chatText('Hi Ada.'));
    const bot = intake();
    const first = message('hello', 'ada', 'same-id');
    bot.submit(inboundFromText(first));
    await bot.idle();
    bot.submit(inboundFromText(first));
    await bot.idle();
    expect(replies()).toEqual(['Hi Ada.']);
    expect(notices()).toEqual(['already_processed']);
    expect((await loadHistory(history, 'console:c1')).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hi Ada.' }] },
    ]);
  });

  it('runs one turn at a time per channel, queues in order, and answers "busy" to a message or a resume when the queue is full', async () => {
    fake.enqueue(stall);
    const bot = intake();
    bot.submit(inboundFromText(message('first')));
    await fake.whenRequests(1);
    // A busy answer waits until the message queued before it is kept.
    const bothBusy = new Promise<void>((resolve) => {
      harness.current.onEvent = () => {
        if (notices().length === 2) resolve();
      };
    });
    bot.submit(inboundFromText(message('second')));
    bot.submit(inboundFromText(message('third')));
    bot.submit(inboundFromText(message('/resume')));
    await bothBusy;
    expect(notices()).toEqual(['busy', 'busy']);
    fake.enqueue(chatText('Second answered.'));
    bot.submit(inboundFromText(message('/stop')));
    await bot.idle();
    expect(replies()).toEqual(['Second answered.']);
    expect(events.filter((e) => e.type === 'turn').map((e) => e.type === 'turn' && e.status)).toEqual(['ACTIVE', 'TERMINAL_CANCELLED', 'ACTIVE', 'TERMINAL_COMPLETED']);
  });

  it('lets only the requester or an admin stop a turn', async () => {
    fake.enqueue(stall);
    const bot = intake();
    bot.submit(inboundFromText(message('long question', 'ada')));
    await fake.whenRequests(1);
    bot.submit(inboundFromText(message('/stop', 'mallory')));
    expect(notices()).toEqual(['status']);
    bot.submit(inboundFromText(message('/stop', 'admin')));
    await bot.idle();
    expect(notices()).toEqual(['status', 'status', 'cancelled']);
  });

  it('reports what runs and what is saved on /status, and that nothing runs when nothing does', async () => {
    const bot = intake();
    bot.submit(inboundFromText(message('/status')));
    bot.submit(inboundFromText(message('/stop')));
    await bot.idle();
    const texts = events.flatMap((e) => (e.type === 'message' ? [e.text] : []));
    expect(texts.sort()).toEqual(['Nothing is running in this channel.', 'Nothing is running in this channel.\nNo saved requests are waiting.']);
  });

  it('suspends a running turn with its work kept when the bot shuts down', async () => {
    fake.enqueue(stall);
    const bot = intake();
    bot.submit(inboundFromText(message('long question')));
    await fake.whenRequests(1);
    await bot.shutdown();
    expect(notices()).toEqual(['suspended']);
    expect(events.find((e) => e.type === 'message' && e.kind === 'notice')).toMatchObject({
      text: 'The bot is restarting. Your request and the work done so far are saved: I will continue it once the bot is back.',
    });
    const [suspended] = await store.listSuspended({ source: 'console', channelId: 'c1' });
    expect(suspended?.suspensionReason).toBe('shutdown');
    bot.submit(inboundFromText(message('too late')));
    await bot.idle();
    expect(fake.requests).toHaveLength(1);
  });

  it('leaves the history as it was for an edit that arrives once shutdown began', async () => {
    fake.enqueue(chatText('Hi Ada.'));
    const bot = intake();
    bot.submit(inboundFromText(message('hello', 'ada', 'hello-id')));
    await bot.idle();
    await bot.shutdown();
    bot.follow({ kind: 'edited', source: 'console', channelId: 'c1', messageId: 'hello-id', text: 'goodbye' });
    await bot.idle();
    expect((await loadHistory(history, 'console:c1')).messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'hello' }] });
  });

  it('tells the user what to configure when no model is set, instead of failing', async () => {
    const bot = intake({ provider: undefined });
    bot.submit(inboundFromText(message('hello')));
    await bot.idle();
    expect(events).toEqual([
      { type: 'message', channelId: 'c1', inReplyTo: expect.any(String) as unknown, turn: null, kind: 'notice', notice: 'failed', text: expect.stringMatching(/set `llm.model`/) as unknown },
    ]);
  });

  it('points an interrupted message at resume instead of running it again', async () => {
    const admission = await store.admit({ identity: { source: 'console', channelId: 'c1', messageId: 'old' }, requesterId: 'ada', messageDigest: 'd', start: startingWith('redelivered') });
    if (admission.disposition !== 'admitted') throw new Error('not admitted');
    await store.suspend(admission.lease, 'interrupted');
    const bot = intake();
    bot.submit(inboundFromText(message('redelivered', 'ada', 'old')));
    await bot.idle();
    expect(notices()).toEqual(['interrupted']);
    expect(fake.requests).toHaveLength(0);
  });

  it('summarises the history beyond its budget once, through the model, when compaction is summarize', async () => {
    fake.enqueue(chatText('First answer, which is long enough.'), chatText('Second answer.'), chatText('Ada asked twice.'));
    const bot = intake({}, 'chat:\n  history_max_chars: 60\n  compaction: summarize\n');
    bot.submit(inboundFromText(message('first question')));
    await bot.idle();
    bot.submit(inboundFromText(message('second question')));
    await bot.idle();
    const summaryRequest = fake.requests[2]?.body as { messages: { role: string; content: string }[] };
    expect(summaryRequest.messages.at(-1)?.content).toContain('user: first question');
    expect((await loadHistory(history, 'console:c1')).messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Summary of the earlier conversation: Ada asked twice.' }] });
  });

  it('stops waiting for a history summary at shutdown instead of holding the bot until the recovery deadline, and keeps the history', async () => {
    const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } };
    fake.enqueue(chatText('An answer long enough to be over the budget.'), ...Array.from({ length: 9 }, () => overloaded));
    const bot = intake({}, 'chat:\n  history_max_chars: 20\n  compaction: summarize\n');
    bot.submit(inboundFromText(message('a question')));
    await fake.whenRequests(2);
    await harness.current.recoveryClock.whenSleeping();
    await bot.shutdown();
    expect(replies()).toEqual(['An answer long enough to be over the budget.']);
    expect(fake.requests).toHaveLength(2);
    expect((await loadHistory(history, 'console:c1')).messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });
});
