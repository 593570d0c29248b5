import { describe, expect, it } from 'vitest';
import { admitNew, expectStale, identity, turnOf, userMessage } from './fixtures.js';
import { useHarness, type MakeHarness } from './harness.js';

export function describeReplies(makeHarness: MakeHarness): void {
  describe('final replies', () => {
    const harness = useHarness(makeHarness);

    it('complete ends the turn and stores its reply as pending in the same write, surviving a reopen', async () => {
      const h = harness();
      const { lease } = await admitNew(h.store, identity('asked'));
      await h.store.checkpoint(lease, { append: [userMessage('question')], state: { step: 1 }, progressed: true });
      await h.store.complete(lease, 'The answer.');
      await h.reopen();
      const turn = await turnOf(h.store, lease.turnId);
      expect(turn).toMatchObject({ status: 'TERMINAL_COMPLETED', leaseToken: null, payloadCompacted: true });
      expect(await h.storedReply(lease.turnId)).toEqual({
        turnId: lease.turnId,
        state: 'pending',
        text: 'The answer.',
        partsDelivered: 0,
        createdAt: h.clock.now(),
        deliveredAt: null,
        failure: null,
      });
      expect(await h.store.listPendingReplies()).toEqual([{ turn, text: 'The answer.', partsDelivered: 0 }]);
    });

    it('keeps the model that wrote a pending reply, and whether it was a fallback, across a reopen', async () => {
      const h = harness();
      const byFallback = (await admitNew(h.store, identity('first'))).lease;
      await h.store.complete(byFallback, 'From the fallback.', { model: 'local-llama', fallback: true });
      const byPrimary = (await admitNew(h.store, identity('second'))).lease;
      await h.store.complete(byPrimary, 'From the primary.', { model: 'claude-main', fallback: false });
      await h.reopen();
      expect((await h.store.listPendingReplies()).map(({ text, writtenBy }) => ({ text, writtenBy }))).toEqual([
        { text: 'From the fallback.', writtenBy: { model: 'local-llama', fallback: true } },
        { text: 'From the primary.', writtenBy: { model: 'claude-main', fallback: false } },
      ]);
    });

    it('complete is fenced: a superseded owner stores neither the ending nor the reply', async () => {
      const h = harness();
      const { lease } = await admitNew(h.store, identity('asked'));
      await h.clock.advance(h.timings.leaseTtlMs + 1);
      await expectStale(h.store.complete(lease, 'Too late.'));
      expect((await turnOf(h.store, lease.turnId)).status).toBe('ACTIVE');
      expect(await h.storedReply(lease.turnId)).toBeUndefined();
      expect(await h.store.listPendingReplies()).toEqual([]);
    });

    it('counts confirmed parts upwards only, then records the delivery time and drops the text', async () => {
      const h = harness();
      const { lease } = await admitNew(h.store, identity('asked'));
      await h.store.complete(lease, 'A long answer.');
      await h.store.recordReplyDelivery(lease.turnId, { kind: 'parts_delivered', partsDelivered: 2 });
      await h.store.recordReplyDelivery(lease.turnId, { kind: 'parts_delivered', partsDelivered: 1 });
      expect((await h.store.listPendingReplies()).map((reply) => reply.partsDelivered)).toEqual([2]);
      await h.clock.advance(1_000);
      await h.store.recordReplyDelivery(lease.turnId, { kind: 'delivered', partsDelivered: 1 });
      expect(await h.storedReply(lease.turnId)).toMatchObject({ state: 'delivered', text: null, partsDelivered: 2, deliveredAt: h.clock.now() });
      expect(await h.store.listPendingReplies()).toEqual([]);
      await h.store.recordReplyDelivery(lease.turnId, { kind: 'abandoned', reason: 'late failure' });
      expect(await h.storedReply(lease.turnId)).toMatchObject({ state: 'delivered', failure: null });
    });

    it('an abandoned reply keeps why and loses its text; the retention sweep abandons one pending past payload retention', async () => {
      const h = harness();
      const refused = await admitNew(h.store, identity('refused'));
      await h.store.complete(refused.lease, 'Nobody may read this.');
      await h.store.recordReplyDelivery(refused.lease.turnId, { kind: 'abandoned', reason: 'Missing Access' });
      expect(await h.storedReply(refused.lease.turnId)).toMatchObject({ state: 'abandoned', text: null, failure: 'Missing Access', deliveredAt: null });

      const stuck = await admitNew(h.store, identity('stuck'));
      await h.store.complete(stuck.lease, 'Never confirmed.');
      await h.clock.advance(h.timings.payloadRetentionMs - 1);
      expect((await h.store.sweepRetention()).abandonedReplies).toBe(0);
      await h.clock.advance(1);
      expect((await h.store.sweepRetention()).abandonedReplies).toBe(1);
      expect(await h.storedReply(stuck.lease.turnId)).toMatchObject({ state: 'abandoned', text: null });
      expect(await h.store.listPendingReplies()).toEqual([]);
    });

    it('lists pending replies oldest first, and a turn ended without a reply has none', async () => {
      const h = harness();
      const first = await admitNew(h.store, identity('first'));
      const failed = await admitNew(h.store, identity('failed'));
      const second = await admitNew(h.store, identity('second'));
      await h.store.complete(first.lease, 'One.');
      await h.clock.advance(10);
      await h.store.finish(failed.lease, 'TERMINAL_FAILED', 'provider_auth');
      await h.store.complete(second.lease, 'Two.');
      expect((await h.store.listPendingReplies()).map((reply) => reply.text)).toEqual(['One.', 'Two.']);
      expect(await h.storedReply(failed.lease.turnId)).toBeUndefined();
    });
  });
}
