import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import type { ConversationDeps } from '../../src/conversation/conversation_deps.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import type { IdFactory } from '../../src/core/ids.js';
import { deferred } from '../support/deferred.js';
import { CHAT_DONE, chatChunk, chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer, FakeStep } from '../support/fake_llm/server.js';
import { useConversationHarness, withoutDurability } from '../support/conversation_harness.js';
import type { ManualClock } from '../support/manual_clock.js';
import { runToCompletion, TEST_RECOVERY_SETTINGS, testRecoveryRuntime } from '../support/recovery_runtime.js';
import type { SeenEvent } from '../support/recording_sink.js';
import { openStoreFileAt } from '../support/turn_store.js';
import { useTempDir } from '../support/temp_dir.js';
import type { ToolTarget } from '../support/tool_target.js';

const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } };
const never = new Promise<void>(() => undefined);

/** Ids shaped like real ones, a lease token after each turn id: the first and third turns' start alike (`aaaa1111-…`, `aaaa5555-…`), the second's does not. */
class ScriptedIds implements IdFactory {
  #next = 0;
  newId(): string {
    this.#next += 1;
    const head =
      new Map([
        [1, 'aaaa1111'],
        [3, 'bbbb3333'],
        [5, 'aaaa5555'],
      ]).get(this.#next) ?? `token${String(this.#next).padStart(3, '0')}`;
    return `${head}-0000-4000-8000-${String(this.#next).padStart(12, '0')}`;
  }
}

describe('what /status and /stop tell a person', () => {
  const harness = useConversationHarness();
  const temp = useTempDir();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let events: SeenEvent[];
  let recoveryClock: ManualClock;
  let storeClock: ManualClock;
  beforeEach(() => {
    ({ fake, target, events, recoveryClock } = harness.current);
    storeClock = harness.current.store.clock;
  });

  const intake = (overrides: Partial<ConversationDeps> = {}): Intake =>
    new Intake(harness.current.deps('turn_state:\n  auto_resume: false\n', { operator: harness.current.store.operator, ...overrides }));
  const statusTexts = (): string[] => events.flatMap((e) => (e.type === 'message' && e.kind === 'notice' && e.notice === 'status' ? [e.text] : []));
  /** Asks `/status` as `authorId`; resolves with the answer, while the channel's turn may still be running. */
  function askStatus(bot: Intake, authorId?: string): Promise<string> {
    const answered = new Promise<string>((resolve) => {
      harness.current.onEvent = (event) => {
        if (event.type === 'message' && event.kind === 'notice' && event.notice === 'status') resolve(event.text);
      };
    });
    bot.submit(inboundFromText(harness.current.message('/status', authorId)));
    return answered;
  }
  const waits = (): string[] => events.flatMap((e) => (e.type === 'waiting' ? [e.text] : []));
  const turnOf = (status: string): string => {
    const event = events.find((e) => e.type === 'turn' && e.status === status);
    if (event?.type !== 'turn') throw new Error(`no turn went ${status}`);
    return event.turn;
  };

  it('shows each wait for the model as it begins, and /status names the attempt waited for and for how long the request has run', async () => {
    // Long backoff steps: with the jitter fixed at one half, the waits are 10 s and then 20 s.
    const recovery = testRecoveryRuntime(recoveryClock, { ...TEST_RECOVERY_SETTINGS, deadlineMs: 120_000, backoffBaseMs: 20_000, backoffCapMs: 40_000 });
    fake.enqueue(overloaded, overloaded, chatText('Milk is white.'));
    const bot = intake({ recovery });
    bot.submit(inboundFromText(harness.current.message('what colour is milk?')));
    await fake.whenRequests(1);
    await recoveryClock.whenSleeping();
    expect(waits()).toEqual(['waiting for the model (attempt 2, 0 s)…']);

    await storeClock.advance(4_000);
    await recoveryClock.advance(10_000);
    await fake.whenRequests(2);
    await recoveryClock.whenSleeping();
    expect(waits()).toEqual(['waiting for the model (attempt 2, 0 s)…', 'waiting for the model (attempt 3, 10 s)…']);
    expect((await askStatus(bot)).split('\n')[0]).toBe(`Working on a request (turn ${turnOf('ACTIVE').slice(0, 8)}) for 4 s: waiting for attempt 3 of the model (in 20 s).`);

    await runToCompletion(recoveryClock, bot.idle());
    expect(harness.current.replies()).toEqual(['Milk is white.']);
  });

  it('/status without a durable store says nothing is saved, and waits on no verdict', async () => {
    const bot = intake(withoutDurability());
    expect((await askStatus(bot)).split('\n')).toEqual(['Nothing is running in this channel.', 'No saved requests are waiting.']);
  });

  it('/status says whether the model is still to answer or already writing', async () => {
    const held = deferred();
    const streamed = deferred();
    fake.enqueue({
      kind: 'stream',
      chunks: [held.promise, chatChunk({ role: 'assistant', content: 'Milk' }), streamed.promise, chatChunk({ content: ' is white.' }, { finishReason: 'stop' }), CHAT_DONE],
    });
    const bot = intake();
    bot.submit(inboundFromText(harness.current.message('what colour is milk?')));
    await fake.whenRequests(1);
    expect(await askStatus(bot)).toMatch(/^Working on a request \(turn [^)]+\) for 0 s: waiting for the model’s answer\.\n/);
    const drafted = new Promise<void>((resolve) => (harness.current.onEvent = (event) => event.type === 'delta' && resolve()));
    held.resolve();
    await drafted;
    expect(await askStatus(bot)).toMatch(/^Working on a request \(turn [^)]+\) for 0 s: the model is writing its answer\.\n/);
    streamed.resolve();
    await bot.idle();
    expect(harness.current.replies()).toEqual(['Milk is white.']);
  });

  it('/status names the tool running; /stop says at once that the running write finishes first, and the request stops after it', async () => {
    const released = deferred();
    target.reply({ hold: released.promise });
    const reached = deferred();
    target.onRequest = () => reached.resolve();
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' }]), chatText('Saved.'));
    const bot = intake();
    bot.submit(inboundFromText(harness.current.message('note: buy milk')));
    await reached.promise;

    expect(await askStatus(bot)).toMatch(/^Working on a request \(turn [^)]+\) for 0 s: running `save_note`\.\n/);

    bot.submit(inboundFromText(harness.current.message('/stop')));
    expect(statusTexts()[1]).toBe('Stopping… `save_note` is already running and will finish first.');
    expect(events.filter((e) => e.type === 'turn').map((e) => e.type === 'turn' && e.status)).toEqual(['ACTIVE']);

    released.resolve();
    await bot.idle();
    expect(target.requests).toHaveLength(1);
    expect(harness.current.notices()).toEqual(['status', 'status', 'cancelled']);
    expect(fake.requests).toHaveLength(1);
  });

  it('/status lists the asker’s saved requests with the short id `resume` takes, why and when each stopped, and when it expires', async () => {
    const store = openStoreFileAt(join(temp.path(), 'digits.sqlite3'), { clock: storeClock, ids: new ScriptedIds() });
    try {
      const bot = intake({ store: store.turns, history: store.history, operator: store.operator });
      for (const [text, author] of [
        ['first', 'ada'],
        ['second', 'bob'],
        ['third', 'ada'],
      ] as const) {
        fake.enqueue(...Array.from({ length: 9 }, () => overloaded));
        bot.submit(inboundFromText(harness.current.message(text, author)));
        await runToCompletion(recoveryClock, bot.idle());
        fake.reset();
        await storeClock.advance(2 * 3_600_000);
      }
      bot.submit(inboundFromText(harness.current.message('/status', 'ada')));
      await bot.idle();
      // The first overload opened the model's breaker, which the later requests found still open.
      expect(statusTexts()[0]?.split('\n').slice(0, 5)).toEqual([
        'Nothing is running in this channel.',
        'Your saved requests (`resume <id>` continues one):',
        '• `aaaa5555` stopped 2 h ago (openai test-model: the capacity breaker is open); expires in 22 h',
        '• `aaaa1111` stopped 6 h ago (openai test-model: HTTP 529 (overloaded_error)); expires in 18 h',
        '1 saved request of other people waits here.',
      ]);

      await recoveryClock.advance(60_000);
      bot.submit(inboundFromText(harness.current.message('resume aaaa', 'ada')));
      await bot.idle();
      expect(events.at(-1)).toMatchObject({
        notice: 'rejected',
        text: expect.stringMatching(/^aaaa names several of your saved requests \(aaaa5555-.*, aaaa1111-.*\); give more of the id\.$/) as unknown,
      });
      fake.enqueue(chatText('The first, answered.'));
      bot.submit(inboundFromText(harness.current.message('resume aaaa1111', 'ada')));
      await runToCompletion(recoveryClock, bot.idle());
      expect(harness.current.replies()).toEqual(['The first, answered.']);
      expect((await store.turns.getTurn(turnOf('TERMINAL_COMPLETED')))?.identity.messageId).toBe('m-1');
    } finally {
      await store.close();
    }
  });

  it('/status says until when an overloaded model’s breaker is open, on the wall clock', async () => {
    fake.enqueue(...Array.from({ length: 9 }, () => overloaded));
    const bot = intake();
    bot.submit(inboundFromText(harness.current.message('hello')));
    await runToCompletion(recoveryClock, bot.idle());
    bot.submit(inboundFromText(harness.current.message('/status')));
    await bot.idle();
    expect(statusTexts()[0]).toContain('\nThe model openai:test-model is overloaded; it is tried again at 00:00:07 UTC (in 5 s).\n');
  });

  it('/status lists the calls that wait for approval in the channel, to anyone who asks, and the tools always allowed there', async () => {
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' }]));
    const bot = new Intake(harness.current.deps('  approval_defaults:\n    write: required\n', { operator: harness.current.store.operator }));
    bot.submit(inboundFromText(harness.current.message('note: buy milk')));
    await bot.idle();
    const [asking] = await harness.current.store.operator.listTurns({ statuses: ['AWAITING_APPROVAL'] });
    if (asking === undefined) throw new Error('no turn waits for approval');
    const short = asking.turn.turnId.slice(0, 8);

    expect(await askStatus(bot, 'bob')).toBe(`Nothing is running in this channel.\nNo saved requests are waiting.\nWaiting for approval: \`save_note\` (request ${short}, call \`w1\`).`);

    // An admin's "Always allow here", as the Discord button records it.
    await harness.current.store.turns.answerApproval({ call: { turnId: asking.turn.turnId, step: 1, toolCallId: 'w1' }, verdict: 'approved', by: 'discord:900', note: null, allowHere: true });
    fake.enqueue(chatText('Saved.'));
    await bot.announceResolutions('console');
    await bot.idle();
    expect(harness.current.replies()).toEqual(['Saved.']);
    expect(await askStatus(bot, 'bob')).toBe('Nothing is running in this channel.\nNo saved requests are waiting.\nAlways allowed here: `save_note`.');
  });

  it('/status names the asker’s calls that wait for an operator’s verdict', async () => {
    target.reply({ hold: never });
    target.onRequest = () => storeClock.advance(6_000);
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"open ticket"}' }]));
    const bot = intake();
    bot.submit(inboundFromText(harness.current.message('open a ticket')));
    await runToCompletion(recoveryClock, bot.idle());
    const parked = turnOf('AWAITING_RESOLUTION');
    bot.submit(inboundFromText(harness.current.message('/status', 'bob')));
    bot.submit(inboundFromText(harness.current.message('/status')));
    await bot.idle();
    expect(statusTexts()).toEqual([
      'Nothing is running in this channel.\nNo saved requests are waiting.',
      `Nothing is running in this channel.\nNo saved requests are waiting.\nYour request \`${parked.slice(0, 8)}\` waits for an operator to check whether \`save_note\` (call w1) took effect.`,
    ]);
  });
});
