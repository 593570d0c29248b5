import { describe, expect, it } from 'vitest';
import type { HistoryStore, StoredHistoryEntry } from '../../../src/turn_state/history_store.js';
import { useKeptHarness, type MakeKeptHarness } from './kept_contract_harness.js';

const CHANNEL = 'console:c1';
const OTHER = 'discord:42';

const texts = (entries: readonly StoredHistoryEntry[]): string[] => entries.map((entry) => `${entry.role}:${entry.text}`);

async function appendAll(store: HistoryStore, ...lines: string[]): Promise<void> {
  for (const [index, line] of lines.entries()) await store.append(CHANNEL, { role: index % 2 === 0 ? 'user' : 'assistant', text: line });
}

/** The behaviour every `HistoryStore` must show, written against the port alone. */
export function describeHistoryStoreContract(name: string, make: MakeKeptHarness): void {
  describe(`HistoryStore contract: ${name}`, () => {
    const harness = useKeptHarness(make);

    it('appends in order, one revision per entry, each channel on its own', async () => {
      const { history } = harness();
      expect(await history.append(CHANNEL, { role: 'user', text: 'hello', authorId: 'ada', messageId: 'm1' })).toBe(1);
      expect(await history.append(CHANNEL, { role: 'assistant', text: 'hi' })).toBe(2);
      expect(await history.append(OTHER, { role: 'user', text: 'ping' })).toBe(1);

      const read = await history.read(CHANNEL);
      expect({ texts: texts(read.entries), revision: read.revision }).toEqual({ texts: ['user:hello', 'assistant:hi'], revision: 2 });
      expect(read.entries[0]?.id).toBeLessThan(read.entries[1]?.id ?? 0);
      expect(await history.revision(OTHER)).toBe(1);
      expect(await history.read('console:never')).toEqual({ entries: [], revision: 0 });
      expect(await history.revision('console:never')).toBe(0);
    });

    it('compacts the oldest entries into one summary, read first, with one revision', async () => {
      const { history } = harness();
      await appendAll(history, 'a', 'b', 'c');
      const [first, second] = (await history.read(CHANNEL)).entries;

      expect(await history.compact(CHANNEL, { throughId: second?.id ?? 0, count: 2, summaryId: undefined, summary: 'a and b' })).toBe(true);

      const after = await history.read(CHANNEL);
      expect(texts(after.entries)).toEqual(['summary:a and b', 'user:c']);
      expect(after.revision).toBe(4);
      expect(first).toBeDefined();

      await appendAll(history, 'd');
      const summaryId = after.entries[0]?.id;
      const c = after.entries[1]?.id ?? 0;
      expect(await history.compact(CHANNEL, { throughId: c, count: 1, summaryId, summary: 'a to c' })).toBe(true);
      expect(texts((await history.read(CHANNEL)).entries)).toEqual(['summary:a to c', 'user:d']);
    });

    it('drops without a summary, removing the earlier summary too, and keeps entries appended since the read', async () => {
      const { history } = harness();
      await appendAll(history, 'a', 'b');
      const [a] = (await history.read(CHANNEL)).entries;
      await history.compact(CHANNEL, { throughId: a?.id ?? 0, count: 1, summaryId: undefined, summary: 'a' });
      const read = await history.read(CHANNEL);
      await appendAll(history, 'c');

      expect(await history.compact(CHANNEL, { throughId: read.entries[1]?.id ?? 0, count: 1, summaryId: read.entries[0]?.id })).toBe(true);

      expect(texts((await history.read(CHANNEL)).entries)).toEqual(['user:c']);
      expect(await history.revision(CHANNEL)).toBe(5);
    });

    it('changes nothing, and bumps no revision, when the channel is not as the plan saw it', async () => {
      const { history } = harness();
      await appendAll(history, 'a', 'b', 'c');
      const [a, b] = (await history.read(CHANNEL)).entries;
      const through = b?.id ?? 0;

      expect(await history.compact(CHANNEL, { throughId: through, count: 3, summaryId: undefined })).toBe(false);
      expect(await history.compact(CHANNEL, { throughId: through, count: 2, summaryId: 12345 })).toBe(false);
      expect(await history.compact(CHANNEL, { throughId: through, count: 0, summaryId: undefined })).toBe(false);
      expect(await history.compact(OTHER, { throughId: through, count: 2, summaryId: undefined })).toBe(false);
      expect(await history.compact(CHANNEL, { throughId: a?.id ?? 0, count: 1, summaryId: undefined, summary: 's' })).toBe(true);
      expect(await history.compact(CHANNEL, { throughId: through, count: 1, summaryId: undefined })).toBe(false);

      expect(texts((await history.read(CHANNEL)).entries)).toEqual(['summary:s', 'assistant:b', 'user:c']);
      expect(await history.revision(CHANNEL)).toBe(4);
      expect(await history.revision(OTHER)).toBe(0);
    });

    it('follows an edit and a deletion of a user’s message with one revision each, and changes nothing for a message it never had', async () => {
      const { history } = harness();
      await history.append(CHANNEL, { role: 'user', text: 'my cat is Tom', messageId: 'm1' });
      await history.append(CHANNEL, { role: 'assistant', text: 'noted' });
      await history.append(CHANNEL, { role: 'user', text: 'and my dog is Rex', messageId: 'm2' });
      await history.append(CHANNEL, { role: 'user', text: 'bye', messageId: 'm3' });

      expect(await history.edit(CHANNEL, 'm1', 'my cat is Felix')).toBe(true);
      expect(await history.edit(CHANNEL, 'm1', 'my cat is Felix')).toBe(false);
      expect(await history.edit(CHANNEL, 'unknown', 'x')).toBe(false);
      expect(await history.edit(OTHER, 'm1', 'x')).toBe(false);
      expect(await history.remove(CHANNEL, ['m2', 'm3', 'unknown'])).toBe(2);
      expect(await history.remove(CHANNEL, ['m2'])).toBe(0);

      expect(texts((await history.read(CHANNEL)).entries)).toEqual(['user:my cat is Felix', 'assistant:noted']);
      expect(await history.revision(CHANNEL)).toBe(6);
      expect(await history.revision(OTHER)).toBe(0);
    });

    it('keeps a message’s attachments with its entry and reads them back whole', async () => {
      const { history } = harness();
      const attachments = [
        { kind: 'image', name: 'dot.png', mediaType: 'image/png', data: Buffer.from('not really a png').toString('base64') },
        { kind: 'text', name: 'notes.txt', text: 'buy milk' },
        { kind: 'skipped', name: 'big.zip', reason: 'unsupported_type' },
      ] as const;
      await history.append(CHANNEL, { role: 'user', text: 'see these', messageId: 'm1', attachments });
      await history.append(CHANNEL, { role: 'user', text: 'and the same dot', messageId: 'm2', attachments: [attachments[0]] });

      const [first, second] = (await history.read(CHANNEL)).entries;
      expect(first?.attachments).toEqual(attachments);
      expect(second?.attachments).toEqual([attachments[0]]);
      await history.remove(CHANNEL, ['m1']);
      expect((await history.read(CHANNEL)).entries.map((entry) => entry.attachments)).toEqual([[attachments[0]]]);
    });

    it('keeps the name of each message’s author with its entry, through an edit and a reopen, and none where none was given', async () => {
      const h = harness();
      await h.history.append(CHANNEL, { role: 'user', text: 'what is milk?', authorId: 'ada', authorName: 'Ada L.', messageId: 'm1' });
      await h.history.append(CHANNEL, { role: 'assistant', text: 'A drink.' });
      await h.history.append(CHANNEL, { role: 'user', text: 'and tea?', authorId: 'bob', authorName: 'Bob [admin]', messageId: 'm2' });
      await h.history.append(CHANNEL, { role: 'user', text: 'hello', authorId: 'eve', messageId: 'm3' });
      expect(await h.history.edit(CHANNEL, 'm2', 'and coffee?')).toBe(true);

      const authors = (entries: readonly StoredHistoryEntry[]) => entries.map((entry) => [entry.text, entry.authorName]);
      const named = [
        ['what is milk?', 'Ada L.'],
        ['A drink.', undefined],
        ['and coffee?', 'Bob [admin]'],
        ['hello', undefined],
      ];
      const before = await h.history.read(CHANNEL);
      expect(authors(before.entries)).toEqual(named);
      expect(before.entries.map((entry) => 'authorName' in entry)).toEqual([true, false, true, false]);

      await h.reopen();
      expect(authors((await h.history.read(CHANNEL)).entries)).toEqual(h.durable ? named : []);
    });

    it('refuses a compaction planned at a revision the channel has moved on from', async () => {
      const { history } = harness();
      await appendAll(history, 'a', 'b');
      const { entries, revision } = await history.read(CHANNEL);
      await appendAll(history, 'c');

      expect(await history.compact(CHANNEL, { throughId: entries[0]?.id ?? 0, count: 1, summaryId: undefined, summary: 'a', revision })).toBe(false);
      expect(await history.compact(CHANNEL, { throughId: entries[0]?.id ?? 0, count: 1, summaryId: undefined, summary: 'a', revision: revision + 1 })).toBe(true);
      expect(texts((await history.read(CHANNEL)).entries)).toEqual(['summary:a', 'assistant:b', 'user:c']);
    });

    it('keeps the entries, the summary and the revision across a reopen when it is durable', async () => {
      const h = harness();
      await appendAll(h.history, 'a', 'b');
      const [a] = (await h.history.read(CHANNEL)).entries;
      await h.history.compact(CHANNEL, { throughId: a?.id ?? 0, count: 1, summaryId: undefined, summary: 'a' });
      const before = await h.history.read(CHANNEL);

      await h.reopen();

      expect(await h.history.read(CHANNEL)).toEqual(h.durable ? before : { entries: [], revision: 0 });
    });
  });
}
