import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HistoryStore, SUMMARY_PREFIX, type HistoryRole, type Summarizer } from '../../src/conversation/history_store.js';
import { ManualClock } from '../../src/core/manual_clock.js';
import type { Message } from '../../src/llm/protocol.js';
import { deferred } from '../support/deferred.js';
import { useTempDir } from '../support/temp_dir.js';

const CHANNEL = 'discord:100';
const OTHER = 'discord:200';

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);
const text = (role: HistoryRole, body: string): Message => ({ role, content: [{ type: 'text', text: body }] });
const summary = (body: string): Message => text('user', `${SUMMARY_PREFIX}${body}`);

/** A summarizer that records what it was given and answers `answer`. */
function recordingSummarizer(answer: string): { readonly calls: Message[][]; readonly summarize: Summarizer } {
  const calls: Message[][] = [];
  const summarize: Summarizer = (messages) => {
    calls.push(messages);
    return Promise.resolve(answer);
  };
  return { calls, summarize };
}

describe('HistoryStore', () => {
  const temp = useTempDir();
  const opened: HistoryStore[] = [];
  afterEach(() => {
    for (const store of opened.splice(0)) store.close();
  });

  function setUp() {
    const clock = new ManualClock();
    const dbPath = join(temp.path(), 'history', 'history.sqlite3');
    const open = (): HistoryStore => {
      const store = HistoryStore.open(dbPath, clock);
      opened.push(store);
      return store;
    };
    return { dbPath, open, store: open() };
  }

  /** Appends ten-character entries `a…`, `b…`, … alternating user and assistant. */
  function appendTens(store: HistoryStore, letters: string, channel = CHANNEL): void {
    [...letters].forEach((letter, index) => {
      store.append(channel, { role: index % 2 === 0 ? 'user' : 'assistant', text: letter.repeat(10), messageId: `m-${letter}` });
    });
  }

  const tens = (letters: string): Message[] => [...letters].map((letter, index) => text(index % 2 === 0 ? 'user' : 'assistant', letter.repeat(10)));

  it('loads the entries as text messages in the order they were appended', () => {
    const { store } = setUp();
    store.append(CHANNEL, { role: 'user', text: 'hello', authorId: 'alice', messageId: 'm1' });
    store.append(CHANNEL, { role: 'assistant', text: 'hi alice' });
    store.append(CHANNEL, { role: 'user', text: 'how are you?', authorId: 'bob' });

    expect(store.load(CHANNEL)).toEqual({
      messages: [text('user', 'hello'), text('assistant', 'hi alice'), text('user', 'how are you?')],
      revision: 3,
    });
  });

  it('keeps channels apart: their entries and their revisions', () => {
    const { store } = setUp();
    appendTens(store, 'abc');
    appendTens(store, 'x', OTHER);

    store.clear(CHANNEL);

    expect(store.load(CHANNEL)).toEqual({ messages: [], revision: 4 });
    expect(store.load(OTHER)).toEqual({ messages: tens('x'), revision: 1 });
    expect(store.load('console:never')).toEqual({ messages: [], revision: 0 });
  });

  it('bumps the revision once for every change and never for a change that did not happen', async () => {
    const { store } = setUp();
    expect(store.revision(CHANNEL)).toBe(0);

    expect(store.append(CHANNEL, { role: 'user', text: 'a'.repeat(10), messageId: 'm-a' })).toBe(1);
    appendTens(store, 'bcd');
    expect(store.revision(CHANNEL)).toBe(4);

    expect(store.remove(CHANNEL, 'no-such-message')).toBe(false);
    expect(store.revision(CHANNEL)).toBe(4);
    expect(store.remove(CHANNEL, 'm-b')).toBe(true);
    expect(store.revision(CHANNEL)).toBe(5);
    expect(store.remove(CHANNEL, 'm-b')).toBe(false);
    expect(store.revision(CHANNEL)).toBe(5);

    expect(await store.fitToBudget(CHANNEL, 30, 'drop')).toEqual({ dropped: 0, summarised: false });
    expect(store.revision(CHANNEL)).toBe(5);
    expect(await store.fitToBudget(CHANNEL, 10, 'drop')).toEqual({ dropped: 2, summarised: false });
    expect(store.revision(CHANNEL)).toBe(6);

    appendTens(store, 'ef');
    expect(await store.fitToBudget(CHANNEL, 10, 'summarize', recordingSummarizer('earlier').summarize)).toEqual({ dropped: 2, summarised: true });
    expect(store.revision(CHANNEL)).toBe(9);

    store.clear(CHANNEL);
    expect(store.revision(CHANNEL)).toBe(10);
    expect(store.load(CHANNEL).messages).toEqual([]);
  });

  it('leaves a deleted message out of the conversation', () => {
    const { store } = setUp();
    appendTens(store, 'abc');

    store.remove(CHANNEL, 'm-b');

    expect(store.load(CHANNEL).messages).toEqual([text('user', 'a'.repeat(10)), text('user', 'c'.repeat(10))]);
  });

  it('keeps the conversation, its summary and its revision across a restart', async () => {
    const { store, open } = setUp();
    appendTens(store, 'abcd');
    await store.fitToBudget(CHANNEL, 20, 'summarize', recordingSummarizer('a and b talked').summarize);
    const before = store.load(CHANNEL);
    store.close();

    const reopened = open();

    expect(reopened.load(CHANNEL)).toEqual(before);
    expect(before).toEqual({ messages: [summary('a and b talked'), ...tens('abcd').slice(2)], revision: 5 });
    expect(reopened.append(CHANNEL, { role: 'user', text: 'back again' })).toBe(6);
  });

  it('drops the oldest entries until the conversation fits the budget', async () => {
    const { store } = setUp();
    appendTens(store, 'abcde');

    expect(await store.fitToBudget(CHANNEL, 25, 'drop')).toEqual({ dropped: 3, summarised: false });

    expect(store.load(CHANNEL).messages).toEqual(tens('abcde').slice(3));
  });

  it('keeps the newest entry even when it alone is over the budget', async () => {
    const { store } = setUp();
    appendTens(store, 'ab');
    store.append(CHANNEL, { role: 'user', text: 'x'.repeat(50) });

    expect(await store.fitToBudget(CHANNEL, 20, 'drop')).toEqual({ dropped: 2, summarised: false });
    expect(await store.fitToBudget(CHANNEL, 20, 'drop')).toEqual({ dropped: 0, summarised: false });

    expect(store.load(CHANNEL)).toEqual({ messages: [text('user', 'x'.repeat(50))], revision: 4 });
  });

  it('replaces the dropped entries by one summary, and folds the earlier summary into the next', async () => {
    const { store } = setUp();
    appendTens(store, 'abcd');
    const first = recordingSummarizer('a and b talked');

    expect(await store.fitToBudget(CHANNEL, 20, 'summarize', first.summarize)).toEqual({ dropped: 2, summarised: true });

    expect(first.calls).toEqual([tens('ab')]);
    expect(store.load(CHANNEL).messages).toEqual([summary('a and b talked'), ...tens('abcd').slice(2)]);

    appendTens(store, 'ef');
    const second = recordingSummarizer('a to d talked');
    expect(await store.fitToBudget(CHANNEL, 20, 'summarize', second.summarize)).toEqual({ dropped: 2, summarised: true });

    expect(second.calls).toEqual([[summary('a and b talked'), ...tens('abcd').slice(2)]]);
    expect(store.load(CHANNEL).messages).toEqual([summary('a to d talked'), ...tens('ef')]);
  });

  it('asks for no summary when the conversation already fits, even right after summarising', async () => {
    const { store } = setUp();
    appendTens(store, 'abcd');
    await store.fitToBudget(CHANNEL, 20, 'summarize', recordingSummarizer('a and b talked').summarize);
    const again = recordingSummarizer('unused');

    expect(await store.fitToBudget(CHANNEL, 20, 'summarize', again.summarize)).toEqual({ dropped: 0, summarised: false });

    expect(again.calls).toEqual([]);
    expect(store.revision(CHANNEL)).toBe(5);
  });

  it('drops instead when the summarizer fails', async () => {
    const { store } = setUp();
    appendTens(store, 'abcd');
    const failing: Summarizer = () => Promise.reject(new Error('provider overloaded'));

    expect(await store.fitToBudget(CHANNEL, 20, 'summarize', failing)).toEqual({ dropped: 2, summarised: false });

    expect(store.load(CHANNEL)).toEqual({ messages: tens('abcd').slice(2), revision: 5 });
  });

  it('keeps a message that arrives while the summary is being written', async () => {
    const { store } = setUp();
    appendTens(store, 'abcd');
    const release = deferred();
    const slow: Summarizer = async () => {
      await release.promise;
      return 'a and b talked';
    };

    const fitting = store.fitToBudget(CHANNEL, 20, 'summarize', slow);
    store.append(CHANNEL, { role: 'user', text: 'meanwhile' });
    release.resolve();

    expect(await fitting).toEqual({ dropped: 2, summarised: true });
    expect(store.load(CHANNEL).messages).toEqual([summary('a and b talked'), ...tens('abcd').slice(2), text('user', 'meanwhile')]);
  });

  it('does not keep a summary of a message deleted while the summary was being written', async () => {
    const { store } = setUp();
    appendTens(store, 'abcd');
    const release = deferred();
    const slow: Summarizer = async () => {
      await release.promise;
      return 'a said something, b answered';
    };

    const fitting = store.fitToBudget(CHANNEL, 20, 'summarize', slow);
    store.remove(CHANNEL, 'm-a');
    release.resolve();

    expect(await fitting).toEqual({ dropped: 1, summarised: false });
    expect(store.load(CHANNEL).messages).toEqual(tens('abcd').slice(2));
  });

  it('keeps its file 0600 and its directory 0700, tightening a directory that was looser', () => {
    const { dbPath, open } = setUp();
    opened.splice(0).forEach((store) => store.close());
    const dir = join(temp.path(), 'history');
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);

    const store = open();
    store.append(CHANNEL, { role: 'user', text: 'hello' });

    expect(mode(dir)).toBe('700');
    for (const name of readdirSync(dir)) expect(`${name}:${mode(join(dir, name))}`).toBe(`${name}:600`);
    expect(readdirSync(dir)).toContain('history.sqlite3');
    expect(mode(dbPath)).toBe('600');
  });
});
