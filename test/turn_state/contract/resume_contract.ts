import { describe, expect, it } from 'vitest';
import type { Lease, OwnerTerminalStatus } from '../../../src/turn_state/turn_types.js';
import { admissionRequest, admitNew, driveOp, expectStale, identity, modelTurn, opKey, resumableOf, suspendAndClaim, toolResultMessage, turnOf, userMessage } from './fixtures.js';
import { useHarness, type Harness, type MakeHarness } from './harness.js';

const CHANNEL = { source: 'discord', channelId: 'chan-1' } as const;
const OWNER_TERMINAL: readonly OwnerTerminalStatus[] = ['TERMINAL_COMPLETED', 'TERMINAL_FAILED', 'TERMINAL_CANCELLED', 'TERMINAL_REJECTED'];

/** A turn with a transcript, a checkpoint and a settled and a pending op, suspended. */
async function suspendedWithWork(h: Harness): Promise<{ turnId: string; generation: number }> {
  const { lease } = await admitNew(h.store);
  await h.store.checkpoint(lease, { append: [userMessage('question')], state: { step: 0 }, progressed: true });
  await h.store.recordModelTurn(lease, modelTurn(1, [{ id: 'done' }, { id: 'pending' }]));
  await driveOp(h.store, lease, opKey(lease.turnId, 1, 'done'), 'APPLIED');
  await h.store.checkpoint(lease, { append: [toolResultMessage('done', 'result: applied')], state: { step: 1 }, progressed: true });
  await h.store.suspend(lease, 'provider overloaded');
  return { turnId: lease.turnId, generation: lease.generation };
}

export function describeResume(makeHarness: MakeHarness): void {
  describe('suspension, ending and resume', () => {
    const harness = useHarness(makeHarness);

    it('suspend releases the lease, keeps all the work and makes the turn resumable', async () => {
      const h = harness();
      const { lease } = await admitNew(h.store);
      await h.store.checkpoint(lease, { append: [userMessage('question')], state: { step: 0 }, progressed: true });
      await h.store.recordModelTurn(lease, modelTurn(1, [{ id: 'call-1' }]));
      const before = await resumableOf(h.store, lease.turnId);

      await h.store.suspend(lease, 'provider overloaded');

      const after = await resumableOf(h.store, lease.turnId);
      expect(after.turn).toMatchObject({ status: 'SUSPENDED', suspensionReason: 'provider overloaded', leaseToken: null, generation: 1, payloadCompacted: false });
      expect({ ...after, turn: undefined }).toEqual({ ...before, turn: undefined });
      expect((await h.store.listSuspended(CHANNEL)).map((t) => t.turnId)).toEqual([lease.turnId]);
    });

    it("lists a channel's suspended turns newest first, and only those", async () => {
      const h = harness();
      const ids: Record<string, string> = {};
      const leases: Lease[] = [];
      for (const [name, id] of [
        ['a', identity('a')],
        ['b', identity('b')],
        ['c', identity('c')],
        ['active', identity('active')],
        ['done', identity('done')],
        ['elsewhere', identity('elsewhere', 'chan-2')],
        ['console', identity('console', 'chan-1', 'console')],
      ] as const) {
        await h.clock.advance(1_000);
        const { lease } = await admitNew(h.store, id);
        ids[name] = lease.turnId;
        leases.push(lease);
      }
      for (const lease of leases) {
        await h.clock.advance(1_000);
        if (lease.turnId === ids['active']) continue;
        if (lease.turnId === ids['done']) await h.store.finish(lease, 'TERMINAL_COMPLETED');
        else await h.store.suspend(lease, 'provider overloaded');
      }

      const listed = await h.store.listSuspended(CHANNEL);

      expect(listed.map((t) => t.turnId)).toEqual([ids['c'], ids['b'], ids['a']]);
      for (const turn of listed) expect(turn).toEqual(await turnOf(h.store, turn.turnId));
      expect((await h.store.listSuspended({ source: 'discord', channelId: 'chan-2' })).map((t) => t.turnId)).toEqual([ids['elsewhere']]);
      expect((await h.store.listSuspended({ source: 'console', channelId: 'chan-1' })).map((t) => t.turnId)).toEqual([ids['console']]);
      expect(await h.store.listSuspended({ source: 'discord', channelId: 'chan-3' })).toEqual([]);
    });

    for (const status of OWNER_TERMINAL) {
      it(`finish(${status}) ends the turn, drops its transcript and checkpoint and keeps its ledger`, async () => {
        const h = harness();
        const { lease } = await admitNew(h.store);
        await h.store.checkpoint(lease, { append: [userMessage('question')], state: { step: 0 }, progressed: true });
        await h.store.recordModelTurn(lease, modelTurn(1, [{ id: 'done' }, { id: 'never-ran' }]));
        await driveOp(h.store, lease, opKey(lease.turnId, 1, 'done'), 'APPLIED');
        const ops = await h.store.listOps(lease.turnId);

        await h.store.finish(lease, status, `why ${status}`);

        const loaded = await resumableOf(h.store, lease.turnId);
        expect(loaded.turn).toMatchObject({ status, failureReason: `why ${status}`, payloadCompacted: true, leaseToken: null });
        expect(loaded.transcript).toEqual([]);
        expect(loaded.checkpoint).toBeUndefined();
        expect(await h.store.listOps(lease.turnId)).toEqual(ops);
        expect(loaded.ops).toEqual(ops);
        expect(await h.store.listSuspended(CHANNEL)).toEqual([]);
      });
    }

    it('finish without a reason leaves the failure reason null', async () => {
      const h = harness();
      const { lease } = await admitNew(h.store);
      await h.store.finish(lease, 'TERMINAL_COMPLETED');
      expect(await turnOf(h.store, lease.turnId)).toMatchObject({ status: 'TERMINAL_COMPLETED', failureReason: null, payloadCompacted: true });
    });

    it('claimResume hands a suspended turn to a new owner with a fresh lease and all its work', async () => {
      const h = harness();
      const { turnId, generation } = await suspendedWithWork(h);
      const before = await resumableOf(h.store, turnId);
      await h.clock.advance(3_600_000);

      const claim = await h.store.claimResume(turnId, generation);

      if (!claim.won) throw new Error(`expected to win, got ${claim.reason}`);
      const now = h.clock.now();
      expect(claim.turn).toMatchObject({ turnId, status: 'ACTIVE', generation: generation + 1, leaseToken: claim.lease.token, leaseExpiresAt: now + h.timings.leaseTtlMs });
      expect(claim.lease).toMatchObject({ turnId, generation: generation + 1, revision: claim.turn.revision, expiresAt: now + h.timings.leaseTtlMs });
      expect(await turnOf(h.store, turnId)).toEqual(claim.turn);
      const after = await resumableOf(h.store, turnId);
      expect({ ...after, turn: undefined }).toEqual({ ...before, turn: undefined });
      const started = await h.store.moveOp(claim.lease, opKey(turnId, 1, 'pending'), { to: 'RUNNING' });
      expect(started.state).toBe('RUNNING');
    });

    it('keeps the traceparent of each traced run, oldest first, and a claim without one adds none (DESIGN §10.3)', async () => {
      const h = harness();
      const first = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const second = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00';
      const admission = await h.store.admit({ ...admissionRequest(identity('traced')), trace: first });
      if (admission.disposition !== 'admitted') throw new Error(`expected admission, got ${admission.disposition}`);
      expect(admission.turn.traces).toEqual([first]);
      await h.store.suspend(admission.lease, 'provider overloaded');

      const claim = await h.store.claimResume(admission.lease.turnId, admission.lease.generation, second);

      if (!claim.won) throw new Error(`expected to win, got ${claim.reason}`);
      expect(claim.turn.traces).toEqual([first, second]);
      const untraced = await suspendAndClaim(h.store, claim.lease);
      expect((await turnOf(h.store, untraced.turnId)).traces).toEqual([first, second]);
      expect((await admitNew(h.store, identity('plain'))).turn.traces).toEqual([]);
    });

    it('gives a new token at every resume', async () => {
      const h = harness();
      const { lease } = await admitNew(h.store);
      const second = await suspendAndClaim(h.store, lease);
      const third = await suspendAndClaim(h.store, second);
      expect(new Set([lease.token, second.token, third.token]).size).toBe(3);
      expect(third.generation).toBe(3);
    });

    it('lets exactly one of two concurrent resumes win; the other is told the turn is not suspended', async () => {
      const h = harness();
      const { turnId, generation } = await suspendedWithWork(h);
      const claims = await Promise.all([h.store.claimResume(turnId, generation), h.store.claimResume(turnId, generation)]);
      expect(claims.filter((c) => c.won)).toHaveLength(1);
      expect(claims.filter((c) => !c.won)).toEqual([{ won: false, reason: 'not_suspended' }]);
      expect((await turnOf(h.store, turnId)).generation).toBe(generation + 1);
    });

    it('refuses a resume of an unknown, active, terminal or already resumed turn, changing nothing', async () => {
      const h = harness();
      const { turnId, generation } = await suspendedWithWork(h);
      const suspended = await turnOf(h.store, turnId);
      expect(await h.store.claimResume('no-such-turn', 1)).toEqual({ won: false, reason: 'not_found' });
      expect(await h.store.claimResume(turnId, generation + 1)).toEqual({ won: false, reason: 'generation_changed' });
      expect(await h.store.claimResume(turnId, generation - 1)).toEqual({ won: false, reason: 'generation_changed' });
      expect(await turnOf(h.store, turnId)).toEqual(suspended);

      const { lease: active } = await admitNew(h.store, identity('msg-active'));
      const activeBefore = await turnOf(h.store, active.turnId);
      expect(await h.store.claimResume(active.turnId, active.generation)).toEqual({ won: false, reason: 'not_suspended' });
      expect(await turnOf(h.store, active.turnId)).toEqual(activeBefore);

      await h.store.finish(active, 'TERMINAL_CANCELLED');
      expect(await h.store.claimResume(active.turnId, active.generation)).toEqual({ won: false, reason: 'not_suspended' });
    });

    it('fences out the previous owner once the turn is resumed', async () => {
      const h = harness();
      const { lease } = await admitNew(h.store);
      await h.store.recordModelTurn(lease, modelTurn(1, [{ id: 'write-1', effect: 'write' }]));
      const resumed = await suspendAndClaim(h.store, lease);
      await h.store.moveOp(resumed, opKey(lease.turnId, 1, 'write-1'), { to: 'RUNNING' });
      await expectStale(h.store.moveOp(lease, opKey(lease.turnId, 1, 'write-1'), { to: 'APPLIED', result: 'from the old owner' }));
      await expectStale(h.store.checkpoint(lease, { append: [userMessage('old owner')], state: {}, progressed: true }));
      expect((await h.store.listOps(lease.turnId))[0]).toMatchObject({ state: 'RUNNING', result: null });
    });

    it('rejectSuspended ends a suspended turn of that generation as TERMINAL_REJECTED, compacted', async () => {
      const h = harness();
      const { turnId, generation } = await suspendedWithWork(h);
      const ops = await h.store.listOps(turnId);

      expect(await h.store.rejectSuspended(turnId, generation, 'message edited')).toBe(true);

      const loaded = await resumableOf(h.store, turnId);
      expect(loaded.turn).toMatchObject({ status: 'TERMINAL_REJECTED', payloadCompacted: true, failureReason: 'message edited' });
      expect(loaded.transcript).toEqual([]);
      expect(loaded.checkpoint).toBeUndefined();
      expect(await h.store.listOps(turnId)).toEqual(ops);
      expect(await h.store.claimResume(turnId, generation)).toEqual({ won: false, reason: 'not_suspended' });
      expect((await h.store.admit(admissionRequest(identity()))).disposition).toBe('already_processed');
    });

    it('rejectSuspended refuses, changing nothing, a wrong generation, an active, a terminal or an unknown turn', async () => {
      const h = harness();
      const { turnId, generation } = await suspendedWithWork(h);
      const suspended = await turnOf(h.store, turnId);
      expect(await h.store.rejectSuspended(turnId, generation + 1, 'edited')).toBe(false);
      expect(await turnOf(h.store, turnId)).toEqual(suspended);

      const { lease: active } = await admitNew(h.store, identity('msg-active'));
      const activeBefore = await turnOf(h.store, active.turnId);
      expect(await h.store.rejectSuspended(active.turnId, active.generation, 'edited')).toBe(false);
      expect(await turnOf(h.store, active.turnId)).toEqual(activeBefore);

      await h.store.finish(active, 'TERMINAL_COMPLETED');
      const finished = await turnOf(h.store, active.turnId);
      expect(await h.store.rejectSuspended(active.turnId, active.generation, 'edited')).toBe(false);
      expect(await turnOf(h.store, active.turnId)).toEqual(finished);
      expect(await h.store.rejectSuspended('no-such-turn', 1, 'edited')).toBe(false);
    });

    it('gives the newest turn a requester started in a channel, whatever its status', async () => {
      const h = harness();
      expect(await h.store.latestTurnOf(CHANNEL, 'user-1')).toBeUndefined();
      const { lease: older } = await admitNew(h.store, identity('first'));
      await h.store.finish(older, 'TERMINAL_COMPLETED');
      await h.clock.advance(1_000);
      const { lease: newer } = await admitNew(h.store, identity('second'));
      await h.store.suspend(newer, 'provider overloaded');
      await h.store.admit(admissionRequest(identity('someone-else'), 'user-2'));
      await h.store.admit(admissionRequest(identity('elsewhere', 'chan-2'), 'user-1'));
      expect(await h.store.latestTurnOf(CHANNEL, 'user-1')).toMatchObject({ turnId: newer.turnId, status: 'SUSPENDED' });
      expect((await h.store.latestTurnOf(CHANNEL, 'user-2'))?.identity.messageId).toBe('someone-else');
    });
  });
}
