import { afterEach, describe, expect, it } from 'vitest';
import { fitHistoryToBudget, loadHistory, SUMMARY_PREFIX, type Summarizer } from '../../src/conversation/history/history_policy.js';
import type { Message } from '../../src/llm/protocol.js';
import type { HistoryRole, HistoryStore } from '../../src/turn_state/history_store.js';
import { deferred } from '../support/deferred.js';
import { openTestStoreFile, type TestStoreFile } from '../support/store_file.js';
import { useTempDir } from '../support/temp_dir.js';

const CHANNEL = 'discord:100';
const OTHER = 'discord:200';

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

describe('the history policy, over the store file', () => {
  const temp = useTempDir();
  const opened: TestStoreFile[] = [];
  afterEach(async () => {
    for (const file of opened.splice(0)) await file.close();
  });

  function setUp() {
    const open = (): HistoryStore => {
      const file = openTestStoreFile(temp.path());
      opened.push(file);
      return file.history;
    };
    return { open, store: open() };
  }

  /** Appends ten-character entries `a…`, `b…`, … alternating user and assistant. */
  async function appendTens(store: HistoryStore, letters: string, channel = CHANNEL): Promise<void> {
    for (const [index, letter] of [...letters].entries()) {
      await store.append(channel, { role: index % 2 === 0 ? 'user' : 'assistant', text: letter.repeat(10), messageId: `m-${letter}` });
    }
  }

  const tens = (letters: string): Message[] => [...letters].map((letter, index) => text(index % 2 === 0 ? 'user' : 'assistant', letter.repeat(10)));
  const fit = (store: HistoryStore, maxChars: number, summarize?: Summarizer, channel = CHANNEL) =>
    fitHistoryToBudget(store, channel, maxChars, summarize === undefined ? 'drop' : 'summarize', summarize);

  it('loads the entries as text messages in the order they were appended', async () => {
    const { store } = setUp();
    await store.append(CHANNEL, { role: 'user', text: 'hello', authorId: 'alice', messageId: 'm1' });
    await store.append(CHANNEL, { role: 'assistant', text: 'hi alice' });
    await store.append(CHANNEL, { role: 'user', text: 'how are you?', authorId: 'bob' });

    expect(await loadHistory(store, CHANNEL)).toEqual({
      messages: [text('user', 'hello'), text('assistant', 'hi alice'), text('user', 'how are you?')],
      revision: 3,
    });
  });

  it('keeps channels apart: their entries and their revisions', async () => {
    const { store } = setUp();
    await appendTens(store, 'abc');
    await appendTens(store, 'x', OTHER);

    await fit(store, 10);

    expect(await loadHistory(store, CHANNEL)).toEqual({ messages: tens('abc').slice(2), revision: 4 });
    expect(await loadHistory(store, OTHER)).toEqual({ messages: tens('x'), revision: 1 });
    expect(await loadHistory(store, 'console:never')).toEqual({ messages: [], revision: 0 });
  });

  it('bumps the revision once for every change and never for a change that did not happen', async () => {
    const { store } = setUp();
    expect(await store.revision(CHANNEL)).toBe(0);

    expect(await store.append(CHANNEL, { role: 'user', text: 'a'.repeat(10), messageId: 'm-a' })).toBe(1);
    await appendTens(store, 'bcd');
    expect(await store.revision(CHANNEL)).toBe(4);

    expect(await fit(store, 40)).toEqual({ dropped: 0, summarised: false });
    expect(await store.revision(CHANNEL)).toBe(4);
    expect(await fit(store, 20)).toEqual({ dropped: 2, summarised: false });
    expect(await store.revision(CHANNEL)).toBe(5);

    await appendTens(store, 'ef');
    expect(await fit(store, 20, recordingSummarizer('earlier').summarize)).toEqual({ dropped: 2, summarised: true });
    expect(await store.revision(CHANNEL)).toBe(8);
  });

  it('keeps the conversation, its summary and its revision across a restart', async () => {
    const { store, open } = setUp();
    await appendTens(store, 'abcd');
    await fit(store, 20, recordingSummarizer('a and b talked').summarize);
    const before = await loadHistory(store, CHANNEL);
    await opened.splice(0).at(0)?.close();

    const reopened = open();

    expect(await loadHistory(reopened, CHANNEL)).toEqual(before);
    expect(before).toEqual({ messages: [summary('a and b talked'), ...tens('abcd').slice(2)], revision: 5 });
    expect(await reopened.append(CHANNEL, { role: 'user', text: 'back again' })).toBe(6);
  });

  it('drops the oldest entries until the conversation fits the budget', async () => {
    const { store } = setUp();
    await appendTens(store, 'abcde');

    expect(await fit(store, 25)).toEqual({ dropped: 3, summarised: false });

    expect((await loadHistory(store, CHANNEL)).messages).toEqual(tens('abcde').slice(3));
  });

  it('keeps the newest entry even when it alone is over the budget', async () => {
    const { store } = setUp();
    await appendTens(store, 'ab');
    await store.append(CHANNEL, { role: 'user', text: 'x'.repeat(50) });

    expect(await fit(store, 20)).toEqual({ dropped: 2, summarised: false });
    expect(await fit(store, 20)).toEqual({ dropped: 0, summarised: false });

    expect(await loadHistory(store, CHANNEL)).toEqual({ messages: [text('user', 'x'.repeat(50))], revision: 4 });
  });

  it('drops when compaction is summarize but there is no summarizer, and refuses a budget that is not a positive integer', async () => {
    const { store } = setUp();
    await appendTens(store, 'abc');

    expect(await fitHistoryToBudget(store, CHANNEL, 10, 'summarize')).toEqual({ dropped: 2, summarised: false });
    await expect(fitHistoryToBudget(store, CHANNEL, 0, 'drop')).rejects.toThrow(RangeError);
    await expect(fitHistoryToBudget(store, CHANNEL, 2.5, 'drop')).rejects.toThrow(RangeError);
  });

  it('replaces the dropped entries by one summary, and folds the earlier summary into the next', async () => {
    const { store } = setUp();
    await appendTens(store, 'abcd');
    const first = recordingSummarizer('a and b talked');

    expect(await fit(store, 20, first.summarize)).toEqual({ dropped: 2, summarised: true });

    expect(first.calls).toEqual([tens('ab')]);
    expect((await loadHistory(store, CHANNEL)).messages).toEqual([summary('a and b talked'), ...tens('abcd').slice(2)]);

    await appendTens(store, 'ef');
    const second = recordingSummarizer('a to d talked');
    expect(await fit(store, 20, second.summarize)).toEqual({ dropped: 2, summarised: true });

    expect(second.calls).toEqual([[summary('a and b talked'), ...tens('abcd').slice(2)]]);
    expect((await loadHistory(store, CHANNEL)).messages).toEqual([summary('a to d talked'), ...tens('ef')]);
  });

  it('asks for no summary when the conversation already fits, even right after summarising', async () => {
    const { store } = setUp();
    await appendTens(store, 'abcd');
    await fit(store, 20, recordingSummarizer('a and b talked').summarize);
    const again = recordingSummarizer('unused');

    expect(await fit(store, 20, again.summarize)).toEqual({ dropped: 0, summarised: false });

    expect(again.calls).toEqual([]);
    expect(await store.revision(CHANNEL)).toBe(5);
  });

  it('drops instead when the summarizer fails or answers nothing', async () => {
    const { store } = setUp();
    await appendTens(store, 'abcd');
    const failing: Summarizer = () => Promise.reject(new Error('provider overloaded'));

    expect(await fit(store, 20, failing)).toEqual({ dropped: 2, summarised: false });
    expect(await loadHistory(store, CHANNEL)).toEqual({ messages: tens('abcd').slice(2), revision: 5 });

    await appendTens(store, 'ef', OTHER);
    expect(await fit(store, 10, recordingSummarizer('   ').summarize, OTHER)).toEqual({ dropped: 1, summarised: false });
    expect((await loadHistory(store, OTHER)).messages).toEqual([text('assistant', 'f'.repeat(10))]);
  });

  it('keeps no summary of a conversation that moved on while it was written, and summarises it at the next fitting', async () => {
    const { store } = setUp();
    await appendTens(store, 'abcd');
    const release = deferred();
    const slow: Summarizer = async () => {
      await release.promise;
      return 'a and b talked';
    };

    const fitting = fit(store, 20, slow);
    await store.append(CHANNEL, { role: 'user', text: 'meanwhile' });
    release.resolve();

    expect(await fitting).toEqual({ dropped: 0, summarised: false });
    expect((await loadHistory(store, CHANNEL)).messages).toEqual([...tens('abcd'), text('user', 'meanwhile')]);
    const again = recordingSummarizer('a, b and c talked');
    expect(await fit(store, 20, again.summarize)).toEqual({ dropped: 3, summarised: true });
    expect((await loadHistory(store, CHANNEL)).messages).toEqual([summary('a, b and c talked'), ...tens('abcd').slice(3), text('user', 'meanwhile')]);
  });

  it('does not keep a summary of entries removed while the summary was being written', async () => {
    const { store } = setUp();
    await appendTens(store, 'abcd');
    const release = deferred();
    const slow: Summarizer = async () => {
      await release.promise;
      return 'a said something, b answered';
    };

    const fitting = fit(store, 20, slow);
    expect(await fit(store, 30)).toEqual({ dropped: 1, summarised: false });
    release.resolve();

    expect(await fitting).toEqual({ dropped: 0, summarised: false });
    expect((await loadHistory(store, CHANNEL)).messages).toEqual(tens('abcd').slice(1));
  });
});
