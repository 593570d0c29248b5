import { describe, expect, it } from 'vitest';
import type { MemoryStore, RecallRequest } from '../../../src/turn_state/memory_store.js';
import { useKeptHarness, type MakeKeptHarness } from './kept_contract_harness.js';

const DAY = 86_400_000;

const alice = (query?: string, limit = 10): RecallRequest => ({ scope: 'user', ownerId: 'alice', limit, ...(query === undefined ? {} : { query }) });
const textsOf = async (store: MemoryStore, request: RecallRequest): Promise<string[]> => (await store.recall(request)).notes.map((note) => note.text);

/** The behaviour every `MemoryStore` must show, written against the port alone. */
export function describeMemoryStoreContract(name: string, make: MakeKeptHarness): void {
  describe(`MemoryStore contract: ${name}`, () => {
    const harness = useKeptHarness(make);

    it('stores a note once per key, dated by the clock, and answers a repeat with the first note', async () => {
      const { memory, clock } = harness();
      const first = await memory.remember({ scope: 'user', ownerId: 'alice', text: 'Likes tea', key: 'k1' });
      expect(first).toEqual({ kind: 'stored', note: { text: 'Likes tea', createdAt: clock.now() } });
      await clock.advance(DAY);

      expect(await memory.remember({ scope: 'user', ownerId: 'alice', text: 'Likes coffee', key: 'k1' })).toEqual({
        kind: 'already_stored',
        note: { text: 'Likes tea', createdAt: clock.now() - DAY },
      });
      expect(await textsOf(memory, alice())).toEqual(['Likes tea']);
    });

    it('refuses a note over 2,000 code points and keeps one of exactly 2,000', async () => {
      const { memory } = harness();
      expect(await memory.remember({ scope: 'user', ownerId: 'alice', text: 'z'.repeat(2001), key: 'k1' })).toEqual({ kind: 'too_long', length: 2001, max: 2000 });
      expect((await memory.remember({ scope: 'user', ownerId: 'alice', text: '🍵'.repeat(2000), key: 'k2' })).kind).toBe('stored');
      expect(await textsOf(memory, alice())).toEqual(['🍵'.repeat(2000)]);
    });

    it('recalls per scope and owner, most recent first, at most the limit, saying whether more matched', async () => {
      const { memory } = harness();
      for (const [index, text] of ['one', 'two', 'three'].entries()) await memory.remember({ scope: 'user', ownerId: 'alice', text, key: `a${index}` });
      await memory.remember({ scope: 'channel', ownerId: 'alice', text: 'channel note', key: 'c' });
      await memory.remember({ scope: 'user', ownerId: 'bob', text: 'bob note', key: 'b' });

      expect(await memory.recall(alice(undefined, 2))).toMatchObject({ notes: [{ text: 'three' }, { text: 'two' }], more: true });
      expect(await memory.recall(alice(undefined, 3))).toMatchObject({ more: false });
      expect(await textsOf(memory, { scope: 'channel', ownerId: 'alice', limit: 5 })).toEqual(['channel note']);
      await expect(memory.recall(alice(undefined, 0))).rejects.toThrow(RangeError);
    });

    it('matches a query as a case-folded substring, taking % and _ literally', async () => {
      const { memory } = harness();
      for (const [index, text] of ['Drinks GREEN tea', 'Discount is 50% off', 'Discount is 50 pounds', 'Uses snake_case', 'Uses snakeXcase', 'Émilie runs the STRASSE café'].entries())
        await memory.remember({ scope: 'user', ownerId: 'alice', text, key: `k${index}` });
      expect(await textsOf(memory, alice('green'))).toEqual(['Drinks GREEN tea']);
      expect(await textsOf(memory, alice('50%'))).toEqual(['Discount is 50% off']);
      expect(await textsOf(memory, alice('snake_case'))).toEqual(['Uses snake_case']);
      expect(await textsOf(memory, alice('émilie runs the straße'))).toEqual(['Émilie runs the STRASSE café']);
      expect(await textsOf(memory, alice(''))).toHaveLength(6);
    });

    it('keeps notes and their keys across a reopen when it is durable', async () => {
      const h = harness();
      await h.memory.remember({ scope: 'user', ownerId: 'alice', text: 'Survives', key: 'k1' });

      await h.reopen();

      expect(await textsOf(h.memory, alice())).toEqual(h.durable ? ['Survives'] : []);
      expect((await h.memory.remember({ scope: 'user', ownerId: 'alice', text: 'Survives', key: 'k1' })).kind).toBe(h.durable ? 'already_stored' : 'stored');
    });
  });
}
