import { told } from '../support/engine_harness.js';
import BetterSqlite3 from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadHistory } from '../../src/conversation/history/history_policy.js';
import type { HistoryStore } from '../../src/turn_state/history_store.js';
import type { ConversationDeps } from '../../src/conversation/conversation_deps.js';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import { messageDigest, type InboundMessage } from '../../src/conversation/transport.js';
import { resumeCommand } from '../../src/conversation/turns/resume.js';
import { NO_FAULTS } from '../../src/engine/fault_points.js';
import { type ManualClock } from '../support/manual_clock.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import { TurnStateUnavailable } from '../../src/turn_state/errors.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { llmConfig, testProvider } from '../support/fake_llm/provider.js';
import { type FakeLLMServer, type FakeStep } from '../support/fake_llm/server.js';
import { runToCompletion, testRecoveryRuntime } from '../support/recovery_runtime.js';
import { useConversationHarness, withoutDurability } from '../support/conversation_harness.js';
import type { SeenEvent } from '../support/recording_sink.js';
import type { ToolTarget } from '../support/tool_target.js';
import { storedTurn } from '../support/stored_rows.js';
import { storeWith } from '../support/turn_store.js';
import { deferred } from '../support/deferred.js';

const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } };
const endlessOverload = (): FakeStep[] => Array.from({ length: 9 }, () => overloaded);

describe('explicit resume', () => {
  const harness = useConversationHarness();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let store: TurnStore;
  let storeClock: ManualClock;
  let recoveryClock: ManualClock;
  let history: HistoryStore;
  let events: SeenEvent[];
  beforeEach(() => {
    ({ fake, target, events, recoveryClock } = harness.current);
    ({ turns: store, clock: storeClock, history } = harness.current.store);
  });

  const deps = (overrides: Partial<ConversationDeps> = {}, autoResume = false): ConversationDeps => harness.current.deps(`turn_state:\n  auto_resume: ${autoResume}\n`, overrides);
  const message = (text: string, authorId?: string): InboundMessage => harness.current.message(text, authorId);
  const notices = (): string[] => harness.current.notices();
  const replies = (): string[] => harness.current.replies();
  const settle = (bot: Intake): Promise<void> => runToCompletion(recoveryClock, bot.idle());

  /** Resolves at the first event (seen or to come) that matches. */
  function until(match: (event: SeenEvent) => boolean): Promise<void> {
    if (events.some(match)) return Promise.resolve();
    return new Promise((resolve) => {
      harness.current.onEvent = (event: SeenEvent) => {
        if (match(event)) resolve();
      };
    });
  }

  /** A turn that looked a word up, then was suspended by an overload. */
  async function suspendedTurn(bot: Intake): Promise<string> {
    fake.enqueue(chatToolCalls([{ id: 'c1', name: 'lookup', args: '{"word":"milk"}' }]), ...endlessOverload());
    const original = message('look up milk');
    bot.submit(inboundFromText(original));
    await settle(bot);
    expect(notices()).toEqual(['suspended']);
    // The overload opened the model's breaker; the provider recovers once its cooldown has passed.
    await recoveryClock.advance(5_000);
    return original.messageId;
  }

  it('continues the requester’s suspended turn without repeating its completed calls, and keeps "resume" out of the history', async () => {
    const bot = new Intake(deps());
    await suspendedTurn(bot);
    fake.reset();
    fake.enqueue(chatText('Milk is a drink.'));
    bot.submit(inboundFromText(message('resume')));
    await settle(bot);
    expect(notices()).toEqual(['suspended', 'resumed']);
    expect(replies()).toEqual(['Milk is a drink.']);
    expect(target.requests).toHaveLength(1);
    const sent = (fake.requests[0]?.body as { messages: { role: string; content: unknown }[] }).messages;
    expect(sent.filter((m) => m.role === 'user')).toEqual([{ role: 'user', content: 'look up milk' }]);
    expect((await loadHistory(history, 'console:c1')).messages.map((m) => m.content[0]?.type === 'text' && m.content[0].text)).toEqual(['look up milk', 'Milk is a drink.']);
  });

  it('says in /status that the model is overloaded while its breaker is open, and stops saying it once it recovered', async () => {
    const bot = new Intake(deps());
    fake.enqueue(chatToolCalls([{ id: 'c1', name: 'lookup', args: '{"word":"milk"}' }]), ...endlessOverload());
    bot.submit(inboundFromText(message('look up milk')));
    await settle(bot);
    bot.submit(inboundFromText(message('/status')));
    await settle(bot);
    const statusTexts = (): string[] => events.flatMap((e) => (e.type === 'message' && e.kind === 'notice' && e.notice === 'status' ? [e.text] : []));
    expect(statusTexts()[0]).toMatch(/\nThe model openai:[^ ]+ is overloaded; it is tried again at \d\d:\d\d:\d\d UTC \(in [1-5] s\)\.\nllm:openai is degraded/);
    fake.reset();
    fake.enqueue(chatText('Milk is a drink.'));
    await recoveryClock.advance(5_000);
    bot.submit(inboundFromText(message('resume')));
    await settle(bot);
    bot.submit(inboundFromText(message('/status')));
    await settle(bot);
    expect(statusTexts()[1]).toBe('Nothing is running in this channel.\nNo saved requests are waiting.');
  });

  it('does not resume someone else’s turn for them', async () => {
    const bot = new Intake(deps());
    await suspendedTurn(bot);
    bot.submit(inboundFromText(message('resume', 'mallory')));
    await settle(bot);
    expect(notices()).toEqual(['suspended', 'rejected']);
    expect(await store.listSuspended({ source: 'console', channelId: 'c1' })).toHaveLength(1);
  });

  it('answers a bare "resume" with nothing saved here, and never asks the model', async () => {
    const bot = new Intake(deps());
    bot.submit(inboundFromText(message('resume')));
    await settle(bot);
    expect(events).toEqual([expect.objectContaining({ kind: 'notice', notice: 'status', text: 'You have no saved request in this channel to resume.' })]);
    expect(fake.requests).toEqual([]);
  });

  it('treats "continue" as an ordinary message when its author has nothing saved here', async () => {
    fake.enqueue(chatText('Continue what?'));
    const bot = new Intake(deps());
    bot.submit(inboundFromText(message('continue')));
    await settle(bot);
    expect(replies()).toEqual(['Continue what?']);
  });

  it('answers the /resume command with nothing saved here, and never asks the model', async () => {
    const bot = new Intake(deps());
    bot.submit(inboundFromText(message('/resume')));
    await settle(bot);
    expect(events).toEqual([expect.objectContaining({ kind: 'notice', notice: 'status', text: 'You have no saved request in this channel to resume.' })]);
    expect(fake.requests).toEqual([]);
  });

  it('ends the turn instead of resuming it when its original message was edited', async () => {
    const edited = deps({ source: { fetchOriginal: (ref) => Promise.resolve({ authorId: ref.authorId, digest: messageDigest('something else') }) } });
    const bot = new Intake(edited);
    await suspendedTurn(bot);
    fake.reset();
    bot.submit(inboundFromText(message('resume')));
    await settle(bot);
    expect(notices()).toEqual(['suspended', 'rejected']);
    expect(fake.requests).toHaveLength(0);
    expect(await store.listSuspended({ source: 'console', channelId: 'c1' })).toEqual([]);
  });

  const damages = [
    ['a checkpoint payload that parses but is wrong', `UPDATE checkpoints SET state = '{}'`],
    ['a checkpoint that is not JSON', `UPDATE checkpoints SET state = 'not json'`],
    ['a transcript row that is null', `UPDATE transcript SET message = 'null' WHERE seq = 0`],
    ['a transcript row whose content is [42]', `UPDATE transcript SET message = '{"role":"user","content":[42]}' WHERE seq = 0`],
    ['a ledger row whose input is not JSON', `UPDATE ops SET input = '{'`],
  ] as const;
  for (const [damage, update] of damages) {
    it(`ends a turn with ${damage} TERMINAL_REJECTED, announced once, and never starts a fresh turn from the trigger`, async () => {
      const bot = new Intake(deps());
      const original = await suspendedTurn(bot);
      const raw = new BetterSqlite3(harness.current.store.dbPath);
      raw.prepare(update).run();
      raw.close();
      fake.reset();
      bot.submit(inboundFromText(message('continue')));
      await settle(bot);
      expect(notices()).toEqual(['suspended', 'rejected']);
      const turn = storedTurn(harness.current.store.dbPath, { source: 'console', channelId: 'c1', messageId: original });
      expect(turn?.status).toBe('TERMINAL_REJECTED');
      expect(events.filter((e) => e.type === 'turn').map((e) => e.type === 'turn' && e.status)).toEqual(['ACTIVE', 'SUSPENDED', 'TERMINAL_REJECTED']);
      expect(fake.requests).toHaveLength(0);

      bot.submit(inboundFromText(message('/resume')));
      await settle(bot);
      expect(notices()).toEqual(['suspended', 'rejected', 'status']);
    });
  }

  it('continues the saved request that /resume names, and says when the named one is not there', async () => {
    const bot = new Intake(deps());
    await suspendedTurn(bot);
    const [saved] = await store.listSuspended({ source: 'console', channelId: 'c1' });
    if (saved === undefined) throw new Error('nothing saved');
    fake.reset();
    bot.submit(inboundFromText(message('/resume no-such-turn')));
    await settle(bot);
    expect(events.at(-1)).toMatchObject({ notice: 'rejected', text: 'There is no saved request no-such-turn of yours in this channel.' });
    fake.enqueue(chatText('Milk is a drink.'));
    bot.submit(inboundFromText(message(`/resume ${saved.turnId}`)));
    await settle(bot);
    expect(notices()).toEqual(['suspended', 'rejected', 'resumed']);
    expect(replies()).toEqual(['Milk is a drink.']);
  });

  it('lets exactly one of two concurrent resumes win', async () => {
    const bot = new Intake(deps());
    await suspendedTurn(bot);
    fake.reset();
    fake.enqueue(chatText('Done.'));
    const trigger = message('resume');
    const [a, b] = await Promise.all([
      resumeCommand(trigger, undefined, true, new AbortController().signal, { ...deps(), store, engine: engineOf() }),
      resumeCommand(trigger, undefined, true, new AbortController().signal, { ...deps(), store, engine: engineOf() }),
    ]);
    expect([a.kind, b.kind].sort()).toEqual(['notice', 'resumed']);
    const winner = a.kind === 'resumed' ? a : b.kind === 'resumed' ? b : undefined;
    if (winner === undefined) throw new Error('no resume won');
    expect(told(await runToCompletion(recoveryClock, winner.continued)).message).toBe('Done.');
    expect(target.requests).toHaveLength(1);
  });

  it('takes the spoken word with nothing saved for a message, also where no durable store is at hand', async () => {
    const attempt = await resumeCommand(message('continue'), undefined, true, new AbortController().signal, { ...deps(withoutDurability()), engine: engineOf() });
    expect(attempt).toEqual({ kind: 'not_a_resume' });
  });

  it('says a request is already being continued when another resume took it while its message was re-read', async () => {
    const bot = new Intake(deps());
    await suspendedTurn(bot);
    fake.reset();
    const [saved] = await store.listSuspended({ source: 'console', channelId: 'c1' });
    if (saved === undefined) throw new Error('nothing saved');
    const racing = deps({
      source: {
        async fetchOriginal(ref) {
          await store.claimResume(saved.turnId, saved.generation);
          return { authorId: ref.authorId, digest: ref.digest };
        },
      },
    });
    const attempt = await resumeCommand(message('resume'), undefined, true, new AbortController().signal, { ...racing, store, engine: engineOf() });
    expect(attempt).toEqual({ kind: 'notice', turn: saved.turnId, notice: 'in_progress', text: 'That request is already being continued.' });
    expect(fake.requests).toEqual([]);
  });

  it('keeps the request saved and says to try again when resuming it fails inside the bot', async () => {
    const failing = deps({ source: { fetchOriginal: () => Promise.reject(new Error('Discord is unreachable')) } });
    const bot = new Intake(failing);
    await suspendedTurn(bot);
    fake.reset();
    bot.submit(inboundFromText(message('resume')));
    await settle(bot);
    expect(notices()).toEqual(['suspended', 'failed']);
    expect(events.at(-1)).toMatchObject({ text: expect.stringMatching(/It is still saved; try `resume` again later/) as unknown });
    expect(fake.requests).toEqual([]);
    expect((await store.listSuspended({ source: 'console', channelId: 'c1' })).map((turn) => turn.status)).toEqual(['SUSPENDED']);
  });

  it('keeps the request saved and says to try again when the store fails while loading it, unlike damaged state', async () => {
    const failing = storeWith(store, 'loadResumable', () => Promise.reject(new TurnStateUnavailable('load turn', new Error('disk I/O error'))));
    const bot = new Intake(deps({ store: failing }));
    await suspendedTurn(bot);
    fake.reset();
    bot.submit(inboundFromText(message('resume')));
    await settle(bot);
    expect(notices()).toEqual(['suspended', 'failed']);
    expect(events.at(-1)).toMatchObject({ text: expect.stringMatching(/It is still saved; try `resume` again later/) as unknown });
    expect((await store.listSuspended({ source: 'console', channelId: 'c1' })).map((turn) => turn.status)).toEqual(['SUSPENDED']);
  });

  it('lets the next resume try the model when the store failed while taking up the previous one', async () => {
    let failures = 1;
    const flaky = storeWith(store, 'claimResume', (turnId, generation) =>
      failures-- > 0 ? Promise.reject(new TurnStateUnavailable('claim resume', new Error('disk I/O error'))) : store.claimResume(turnId, generation),
    );
    const bot = new Intake(deps({ store: flaky }));
    await suspendedTurn(bot);
    fake.reset();
    fake.enqueue(chatText('Milk is a drink.'));
    bot.submit(inboundFromText(message('resume')));
    await settle(bot);
    expect(notices()).toEqual(['suspended', 'failed']);
    bot.submit(inboundFromText(message('resume')));
    await settle(bot);
    expect(notices()).toEqual(['suspended', 'failed', 'resumed']);
    expect(replies()).toEqual(['Milk is a drink.']);
  });

  it('says a request is already being continued when another resume took it while its damaged state was being refused', async () => {
    const raced = storeWith(store, 'rejectSuspended', () => Promise.resolve(false));
    const bot = new Intake(deps({ store: raced }));
    await suspendedTurn(bot);
    const raw = new BetterSqlite3(harness.current.store.dbPath);
    raw.prepare(`UPDATE checkpoints SET state = 'not json'`).run();
    raw.close();
    bot.submit(inboundFromText(message('resume')));
    await settle(bot);
    expect(notices()).toEqual(['suspended', 'in_progress']);
    expect(events.filter((e) => e.type === 'turn').map((e) => e.type === 'turn' && e.status)).toEqual(['ACTIVE', 'SUSPENDED']);
  });

  it('says a turn expired even after the retention sweep already ended it', async () => {
    const bot = new Intake(deps());
    const original = await suspendedTurn(bot);
    await storeClock.advance(24 * 3_600_000 + 1);
    await store.sweepRetention();
    expect(storedTurn(harness.current.store.dbPath, { source: 'console', channelId: 'c1', messageId: original })?.status).toBe('TERMINAL_EXPIRED');
    bot.submit(inboundFromText(message('resume')));
    await settle(bot);
    expect(notices()).toEqual(['suspended', 'expired']);
    expect(fake.requests).toHaveLength(10);
  });

  it('says a turn has expired when its resume window closed', async () => {
    const bot = new Intake(deps());
    const original = await suspendedTurn(bot);
    await storeClock.advance(24 * 3_600_000 + 1);
    bot.submit(inboundFromText(message('resume')));
    await settle(bot);
    expect(notices()).toEqual(['suspended', 'expired']);
    const turn = storedTurn(harness.current.store.dbPath, { source: 'console', channelId: 'c1', messageId: original });
    expect(turn?.status).toBe('TERMINAL_EXPIRED');
  });

  function engineOf() {
    return {
      provider: testProvider(llmConfig('openai', fake.baseUrl)),
      recovery: testRecoveryRuntime(recoveryClock),
      clock: storeClock,
      faults: NO_FAULTS,
      heartbeatMs: 10_000,
      approvalTimeoutMs: 3_600_000,
    };
  }

  describe('automatic resume', () => {
    it('continues the suspended turn by itself once the breaker lets a probe through, without repeating its calls', async () => {
      const bot = new Intake(deps({}, true));
      fake.enqueue(chatToolCalls([{ id: 'c1', name: 'lookup', args: '{"word":"milk"}' }]), ...endlessOverload(), chatText('Milk is a drink.'));
      bot.submit(inboundFromText(message('look up milk')));
      await settle(bot);
      await runToCompletion(
        recoveryClock,
        until((e) => e.type === 'message' && e.kind === 'reply'),
      );
      expect(notices()).toEqual(['suspended', 'resumed']);
      expect(replies()).toEqual(['Milk is a drink.']);
      expect(target.requests).toHaveLength(1);
      await bot.close();
    });

    it('stands down quietly when the history cannot be read as the breaker admits the turn, and explicit resume still works', async () => {
      let revisions = 0;
      const failed = deferred();
      const flaky: HistoryStore = new Proxy(history, {
        get: (store, name) => {
          if (name !== 'revision') {
            const value: unknown = Reflect.get(store, name);
            return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(store) : value;
          }
          return (channel: string) => {
            if (++revisions !== 2) return store.revision(channel);
            failed.resolve();
            return Promise.reject(new TurnStateUnavailable('read revision', new Error('disk I/O error')));
          };
        },
      });
      const bot = new Intake(deps({ history: flaky }, true));
      fake.enqueue(chatToolCalls([{ id: 'c1', name: 'lookup', args: '{"word":"milk"}' }]), ...endlessOverload());
      bot.submit(inboundFromText(message('look up milk')));
      await runToCompletion(
        recoveryClock,
        until((e) => e.type === 'message' && e.kind === 'notice'),
      );
      await runToCompletion(recoveryClock, failed.promise);
      await settle(bot);
      expect(notices()).toEqual(['suspended']);
      fake.enqueue(chatText('Milk is a drink.'));
      bot.submit(inboundFromText(message('resume')));
      await settle(bot);
      expect(notices()).toEqual(['suspended', 'resumed']);
      expect(replies()).toEqual(['Milk is a drink.']);
      await bot.close();
    });

    it('stands down when the conversation moved on, and explicit resume still works', async () => {
      const bot = new Intake(deps({}, true));
      fake.enqueue(chatToolCalls([{ id: 'c1', name: 'lookup', args: '{"word":"milk"}' }]), ...endlessOverload());
      bot.submit(inboundFromText(message('look up milk')));
      await runToCompletion(
        recoveryClock,
        until((e) => e.type === 'message' && e.kind === 'notice'),
      );
      fake.enqueue(chatText('Unrelated answer.'));
      bot.submit(inboundFromText(message('something else')));
      await settle(bot);
      expect(replies()).toEqual(['Unrelated answer.']);
      expect(notices()).toEqual(['suspended']);
      fake.enqueue(chatText('Milk is a drink.'));
      bot.submit(inboundFromText(message('resume')));
      await settle(bot);
      expect(notices()).toEqual(['suspended', 'resumed']);
      expect(replies()).toEqual(['Unrelated answer.', 'Milk is a drink.']);
      expect(target.requests).toHaveLength(1);
      await bot.close();
    });
  });
});
