import { Writable } from 'node:stream';
import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { inboundFromText } from '../../src/conversation/notices/channel_commands.js';
import type { ConversationDeps } from '../../src/conversation/conversation_deps.js';
import { Intake } from '../../src/conversation/turns/intake.js';
import { everyChannelOf } from '../../src/conversation/transport.js';
import type { HistoryStore } from '../../src/turn_state/history_store.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { type FakeLLMServer, sse } from '../support/fake_llm/server.js';
import { useConversationHarness, withoutDurability } from '../support/conversation_harness.js';
import { deferred } from '../support/deferred.js';

const stall = { kind: 'stream' as const, chunks: [sse({ choices: [{ index: 0, delta: { content: 'Working' } }] })], then: 'stall' as const };
const HOUR = 3_600_000;

/** A logger whose lines at ERROR and above land in `lines`. */
function errorLog(lines: Record<string, unknown>[]): ConversationDeps['logger'] {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return pino({ level: 'error' }, sink);
}

describe('the inbox: messages accepted into a channel’s queue', () => {
  const harness = useConversationHarness();
  let fake: FakeLLMServer;
  let store: TurnStore;
  beforeEach(() => {
    fake = harness.current.fake;
    store = harness.current.store.turns;
  });

  const intake = (overrides: Partial<ConversationDeps> = {}): Intake => new Intake(harness.current.deps('', overrides));
  const submitted = (bot: Intake, text: string): void => bot.submit(inboundFromText(harness.current.message(text)));

  /** An intake running a turn the model never finishes, with `queued` messages behind it, shut down. */
  async function shutDownWithQueued(...queued: string[]): Promise<void> {
    fake.enqueue(stall);
    const bot = intake();
    submitted(bot, 'first');
    await fake.whenRequests(1);
    for (const text of queued) submitted(bot, text);
    await bot.shutdown();
  }

  it('keeps a queued message in the store before anything is said, starts none at shutdown, and answers it after the next start', async () => {
    await shutDownWithQueued('second');
    expect((await store.listInbox('console')).map((entry) => entry.identity.messageId)).toEqual(['m-2']);
    expect(fake.requests).toHaveLength(1);

    fake.enqueue(chatText('Answer to second.'));
    const again = intake();
    await again.restoreInbox(everyChannelOf('console'));
    await again.idle();
    expect(harness.current.replies()).toEqual(['Answer to second.']);
    expect(await store.listInbox('console')).toEqual([]);
  });

  it('leaves a message whose history was being read when shutdown began in the inbox: the model gets nothing, and the next start answers it once', async () => {
    const reading = deferred();
    const release = deferred();
    const real = harness.current.store.history;
    const history: HistoryStore = {
      ...bound(real),
      read: async (channel) => {
        reading.resolve();
        await release.promise;
        return real.read(channel);
      },
    };
    const bot = intake({ history });
    submitted(bot, 'hello');
    await reading.promise;
    const stopping = bot.shutdown();
    release.resolve();
    await stopping;

    expect((await store.listInbox('console')).map((entry) => entry.identity.messageId)).toEqual(['m-1']);
    expect(await store.latestTurnOf({ source: 'console', channelId: 'c1' }, 'ada')).toBeUndefined();
    expect(fake.requests).toHaveLength(0);
    expect(harness.current.events).toEqual([]);

    fake.enqueue(chatText('Hello, Ada.'));
    const again = intake();
    await again.restoreInbox(everyChannelOf('console'));
    await again.idle();
    const third = intake();
    await third.restoreInbox(everyChannelOf('console'));
    await third.idle();
    expect(harness.current.replies()).toEqual(['Hello, Ada.']);
    expect(fake.requests).toHaveLength(1);
    expect(await store.listInbox('console')).toEqual([]);
  });

  it('answers a message whose resume window closed while it waited with one `expired` notice, and never runs it', async () => {
    await shutDownWithQueued('second', 'third');
    await harness.current.store.clock.advance(24 * HOUR);
    const again = intake();
    await again.restoreInbox(everyChannelOf('console'));
    await again.idle();
    expect(harness.current.notices().filter((notice) => notice === 'expired')).toHaveLength(2);
    expect(fake.requests).toHaveLength(1);

    await intake().restoreInbox(everyChannelOf('console'));
    expect(harness.current.notices().filter((notice) => notice === 'expired')).toHaveLength(2);
  });

  it('answers `failed` instead of queueing a message the store can no longer keep, and starts with what it can when the inbox cannot be read', async () => {
    const lines: Record<string, unknown>[] = [];
    await harness.current.store.close();
    const bot = intake({ logger: errorLog(lines) });
    await bot.restoreInbox(everyChannelOf('console'));
    submitted(bot, 'hello');
    await bot.idle();
    expect(harness.current.notices()).toEqual(['failed']);
    expect(harness.current.events.at(-1)).toMatchObject({ text: expect.stringMatching(/^My storage is unavailable/) as unknown });
    expect(lines.map((line) => line['msg'])).toEqual([
      'the inbox could not be read: messages queued before the restart wait for the next start',
      'a queued message could not be kept: the store is unavailable',
    ]);
    expect(fake.requests).toHaveLength(0);
  });

  it('has nothing to answer after a start without durability: queued messages lived in memory only', async () => {
    await shutDownWithQueued('second');
    const again = intake(withoutDurability());
    await again.restoreInbox(everyChannelOf('console'));
    await again.idle();
    expect(harness.current.replies()).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it('drops an inbox entry that is not a message this bot wrote, logging it at ERROR, and answers the ones it can read', async () => {
    const lines: Record<string, unknown>[] = [];
    await store.acceptInbound({ identity: { source: 'console', channelId: 'c1', messageId: 'odd' }, message: { text: 42 } });
    await store.acceptInbound({ identity: { source: 'console', channelId: 'c1', messageId: 'm-1' }, message: harness.current.message('hello', 'ada', 'm-1') });
    fake.enqueue(chatText('Hello, Ada.'));
    const bot = intake({ logger: errorLog(lines) });
    await bot.restoreInbox(everyChannelOf('console'));
    await bot.idle();
    expect(harness.current.replies()).toEqual(['Hello, Ada.']);
    expect(lines).toEqual([expect.objectContaining({ level: 50, message: 'odd', msg: 'an inbox entry is not a message this bot wrote: dropped unanswered' })]);
    expect(await store.listInbox('console')).toEqual([]);
  });

  it('keeps where a queued message was said and its names: after the restart its turn gets the prompt of the `overrides` entry for that place, filled with them', async () => {
    const names = { server: 'Fake Guild', channel: 'support', user: 'Ada' };
    const queued = { ...harness.current.message('how do I reset it?', 'ada', 'm-1'), place: { guildId: 'g-1', categoryId: 'support' }, names };
    await store.acceptInbound({ identity: { source: 'console', channelId: 'c1', messageId: 'm-1' }, message: queued });
    fake.enqueue(chatText('Hold the button.'));
    const bot = new Intake(harness.current.deps("overrides:\n  - match: { category_ids: [support] }\n    system_prompt: 'You answer {user} in {channel} of {server}.'\n"));
    await bot.restoreInbox(everyChannelOf('console'));
    await bot.idle();
    expect(harness.current.replies()).toEqual(['Hold the button.']);
    expect((fake.requests[0]?.body as { messages: { role: string; content: unknown }[] }).messages[0]).toEqual({ role: 'system', content: 'You answer Ada in support of Fake Guild.' });
  });

  it('leaves the entries of channels this process does not serve in the inbox, untouched, and answers the ones it serves', async () => {
    const elsewhere = { ...harness.current.message('not for this process', 'ada', 'e-1'), channelId: 'c2' };
    await store.acceptInbound({ identity: { source: 'console', channelId: 'c2', messageId: 'e-1' }, message: elsewhere });
    await store.acceptInbound({ identity: { source: 'console', channelId: 'c2', messageId: 'e-2' }, message: { text: 42 } });
    await store.acceptInbound({ identity: { source: 'console', channelId: 'c1', messageId: 'm-1' }, message: harness.current.message('hello', 'ada', 'm-1') });
    const notServed = (await store.listInbox('console')).filter((entry) => entry.identity.channelId === 'c2');
    fake.enqueue(chatText('Hello, Ada.'));
    const bot = intake();
    await bot.restoreInbox({ source: 'console', serves: (channelId) => Promise.resolve(channelId === 'c1') });
    await bot.idle();
    expect(harness.current.replies()).toEqual(['Hello, Ada.']);
    expect(fake.requests).toHaveLength(1);
    expect(await store.listInbox('console')).toEqual(notServed);
    expect(notServed.map((entry) => entry.identity.messageId)).toEqual(['e-1', 'e-2']);
  });

  it('tells the user a message failed, logs why at ERROR, and keeps nothing of it when the history cannot be read', async () => {
    const lines: Record<string, unknown>[] = [];
    const real = harness.current.store.history;
    const history: HistoryStore = { ...bound(real), read: () => Promise.reject(new Error('database is locked')) };
    const bot = intake({ history, logger: errorLog(lines) });
    submitted(bot, 'hello');
    await bot.idle();
    expect(harness.current.notices()).toEqual(['failed']);
    expect(lines).toEqual([expect.objectContaining({ level: 50, channel: 'c1', err: expect.objectContaining({ message: 'database is locked' }) as unknown })]);
    expect(await store.listInbox('console')).toEqual([]);
    expect(await store.latestTurnOf({ source: 'console', channelId: 'c1' }, 'ada')).toBeUndefined();
    expect(fake.requests).toHaveLength(0);
  });

  it('adds the request and the reply to the channel history in the turn’s own writes, asking the history store for neither', async () => {
    const real = harness.current.store.history;
    const history: HistoryStore = { ...bound(real), append: () => Promise.reject(new Error('database is locked')) };
    fake.enqueue(chatText('Hello, Ada.'));
    const bot = intake({ history });
    submitted(bot, 'hello');
    await bot.idle();
    const turn = await store.latestTurnOf({ source: 'console', channelId: 'c1' }, 'ada');
    expect(turn?.status).toBe('TERMINAL_COMPLETED');
    expect((await real.read('console:c1')).entries.map((entry) => [entry.role, entry.text])).toEqual([
      ['user', 'hello'],
      ['assistant', 'Hello, Ada.'],
    ]);
  });
});

/** The history store's methods bound to it, so that a test can replace one of them. */
function bound(history: HistoryStore): HistoryStore {
  return {
    append: (channel, entry) => history.append(channel, entry),
    read: (channel) => history.read(channel),
    revision: (channel) => history.revision(channel),
    compact: (channel, plan) => history.compact(channel, plan),
    edit: (channel, messageId, text) => history.edit(channel, messageId, text),
    remove: (channel, messageIds) => history.remove(channel, messageIds),
  };
}
