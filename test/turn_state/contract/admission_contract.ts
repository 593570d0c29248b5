import { describe, expect, it } from 'vitest';
import type { TurnStatus } from '../../../src/turn_state/turn_types.js';
import { admissionRequest, admitNew, byKey, driveOp, expectStale, findOp, identity, modelTurn, opKey, turnOf } from './fixtures.js';
import { useHarness, type Harness, type MakeHarness } from './harness.js';

interface ExistingCase {
  readonly name: string;
  /** Brings the turn of `identity()` to the state under test and returns its id. */
  readonly setup: (h: Harness) => Promise<string>;
  readonly status: TurnStatus;
  readonly disposition: 'already_processed' | 'in_progress' | 'resumable';
  /** Whether admission itself may change the turn (only the expired lease is swept). */
  readonly sweeps: boolean;
}

async function finished(h: Harness, status: 'TERMINAL_COMPLETED' | 'TERMINAL_FAILED' | 'TERMINAL_CANCELLED' | 'TERMINAL_REJECTED'): Promise<string> {
  const { lease } = await admitNew(h.store);
  await h.store.finish(lease, status, `ended ${status}`);
  return lease.turnId;
}

const EXISTING: readonly ExistingCase[] = [
  {
    name: 'ACTIVE with a lease that has 1 ms left',
    setup: async (h) => {
      const { lease } = await admitNew(h.store);
      await h.clock.advance(h.timings.leaseTtlMs - 1);
      return lease.turnId;
    },
    status: 'ACTIVE',
    disposition: 'in_progress',
    sweeps: false,
  },
  {
    name: 'ACTIVE with a lease that expired',
    setup: async (h) => {
      const { lease } = await admitNew(h.store);
      await h.clock.advance(h.timings.leaseTtlMs);
      return lease.turnId;
    },
    status: 'ACTIVE',
    disposition: 'resumable',
    sweeps: true,
  },
  {
    name: 'SUSPENDED',
    setup: async (h) => {
      const { lease } = await admitNew(h.store);
      await h.store.suspend(lease, 'provider overloaded');
      return lease.turnId;
    },
    status: 'SUSPENDED',
    disposition: 'resumable',
    sweeps: false,
  },
  { name: 'TERMINAL_COMPLETED', setup: (h) => finished(h, 'TERMINAL_COMPLETED'), status: 'TERMINAL_COMPLETED', disposition: 'already_processed', sweeps: false },
  { name: 'TERMINAL_FAILED', setup: (h) => finished(h, 'TERMINAL_FAILED'), status: 'TERMINAL_FAILED', disposition: 'already_processed', sweeps: false },
  { name: 'TERMINAL_CANCELLED', setup: (h) => finished(h, 'TERMINAL_CANCELLED'), status: 'TERMINAL_CANCELLED', disposition: 'already_processed', sweeps: false },
  { name: 'TERMINAL_REJECTED by its owner', setup: (h) => finished(h, 'TERMINAL_REJECTED'), status: 'TERMINAL_REJECTED', disposition: 'already_processed', sweeps: false },
  {
    name: 'TERMINAL_REJECTED while suspended',
    setup: async (h) => {
      const { lease } = await admitNew(h.store);
      await h.store.suspend(lease, 'provider overloaded');
      expect(await h.store.rejectSuspended(lease.turnId, lease.generation, 'message edited')).toBe(true);
      return lease.turnId;
    },
    status: 'TERMINAL_REJECTED',
    disposition: 'already_processed',
    sweeps: false,
  },
  {
    name: 'TERMINAL_EXPIRED',
    setup: async (h) => {
      const { lease } = await admitNew(h.store);
      await h.store.suspend(lease, 'provider overloaded');
      await h.clock.advance(h.timings.resumeTtlMs);
      await h.store.sweepRetention();
      return lease.turnId;
    },
    status: 'TERMINAL_EXPIRED',
    disposition: 'already_processed',
    sweeps: false,
  },
];

export function describeAdmission(makeHarness: MakeHarness): void {
  describe('admission', () => {
    const harness = useHarness(makeHarness);

    it('admits a new message as an ACTIVE turn of generation 1 holding a fresh lease', async () => {
      const { store, clock, timings, storedTurn } = harness();
      await clock.advance(12_345);
      const now = clock.now();
      const admission = await store.admit(admissionRequest(identity('msg-7'), 'user-9'));
      if (admission.disposition !== 'admitted') throw new Error(`expected admitted, got ${admission.disposition}`);
      const { turn, lease } = admission;
      expect(turn).toMatchObject({
        identity: identity('msg-7'),
        requesterId: 'user-9',
        messageDigest: admissionRequest(identity('msg-7')).messageDigest,
        status: 'ACTIVE',
        generation: 1,
        revision: 1,
        leaseToken: lease.token,
        leaseExpiresAt: now + timings.leaseTtlMs,
        createdAt: now,
        lastProgressAt: now,
        recoveryDeadlineAt: null,
        suspensionReason: null,
        failureReason: null,
        payloadCompacted: false,
      });
      expect(lease).toMatchObject({ turnId: turn.turnId, generation: 1, revision: turn.revision, expiresAt: now + timings.leaseTtlMs });
      expect(lease.token).not.toBe('');
      expect(await store.getTurn(turn.turnId)).toEqual(turn);
      expect(await storedTurn(identity('msg-7'))).toEqual(turn);
    });

    it('admits other messages, and the same message id in another channel or source, as separate turns', async () => {
      const { store, storedTurn } = harness();
      const ids = [identity('msg-1'), identity('msg-2'), identity('msg-1', 'chan-2'), identity('msg-1', 'chan-1', 'console')];
      const admitted: Awaited<ReturnType<typeof admitNew>>[] = [];
      for (const id of ids) admitted.push(await admitNew(store, id));
      expect(new Set(admitted.map((a) => a.turn.turnId)).size).toBe(ids.length);
      expect(new Set(admitted.map((a) => a.lease.token)).size).toBe(ids.length);
      for (const [index, id] of ids.entries()) expect((await storedTurn(id))?.turnId).toBe(admitted[index]?.turn.turnId);
    });

    it('knows nothing of a message it never admitted', async () => {
      const { store, storedTurn } = harness();
      await admitNew(store, identity('msg-1'));
      expect(await storedTurn(identity('msg-2'))).toBeUndefined();
      expect(await store.getTurn('no-such-turn')).toBeUndefined();
      expect(await store.loadResumable('no-such-turn')).toBeUndefined();
    });

    it('passes on an error of its own code at admission as it is, never as the store being unavailable, and keeps nothing of the message', async () => {
      const { store, storedTurn } = harness();
      const unencodable = { ...admissionRequest(identity('msg-1')), start: { transcript: [], state: { count: 10n } } };

      await expect(store.admit(unencodable)).rejects.toBeInstanceOf(TypeError);

      expect(await storedTurn(identity('msg-1'))).toBeUndefined();
      expect((await store.admit(admissionRequest(identity('msg-1')))).disposition).toBe('admitted');
    });

    for (const c of EXISTING) {
      it(`never runs a message fresh again when its turn is ${c.name}: ${c.disposition}`, async () => {
        const h = harness();
        const turnId = await c.setup(h);
        const before = await turnOf(h.store, turnId);
        expect(before.status).toBe(c.status);

        const admission = await h.store.admit(admissionRequest(identity(), 'someone-else'));

        expect(admission.disposition).toBe(c.disposition);
        const after = await turnOf(h.store, turnId);
        expect('turn' in admission ? admission.turn.turnId : admission.disposition).toBe(turnId);
        expect((await h.storedTurn(identity()))?.turnId).toBe(turnId);
        expect(after.requesterId).toBe('user-1');
        if (!c.sweeps) expect(after).toEqual(before);
      });
    }

    it('sweeps an ACTIVE turn whose lease expired to SUSPENDED, its RUNNING ops to OUTCOME_UNKNOWN, and answers resumable', async () => {
      const { store, clock, timings } = harness();
      const { lease } = await admitNew(store);
      await store.recordModelTurn(lease, modelTurn(1, [{ id: 'prepared' }, { id: 'running' }, { id: 'applied' }]));
      await driveOp(store, lease, opKey(lease.turnId, 1, 'running'), 'RUNNING');
      await driveOp(store, lease, opKey(lease.turnId, 1, 'applied'), 'APPLIED');
      const opsBefore = byKey(await store.listOps(lease.turnId));
      await clock.advance(timings.leaseTtlMs);

      const admission = await store.admit(admissionRequest(identity()));

      expect(admission.disposition).toBe('resumable');
      if (admission.disposition === 'resumable') expect(admission.turn.status).toBe('SUSPENDED');
      expect(await turnOf(store, lease.turnId)).toMatchObject({ status: 'SUSPENDED', generation: 1, leaseToken: null });
      const ops = await store.listOps(lease.turnId);
      expect(findOp(ops, 1, 'running').state).toBe('OUTCOME_UNKNOWN');
      expect(findOp(ops, 1, 'prepared')).toEqual(findOp(opsBefore, 1, 'prepared'));
      expect(findOp(ops, 1, 'applied')).toEqual(findOp(opsBefore, 1, 'applied'));
      expect((await store.listSuspended({ source: 'discord', channelId: 'chan-1' })).map((t) => t.turnId)).toEqual([lease.turnId]);
      await expectStale(store.moveOp(lease, opKey(lease.turnId, 1, 'prepared'), { to: 'RUNNING' }));
    });

    it('admits exactly one of two concurrent admissions of the same new message', async () => {
      const { store, storedTurn } = harness();
      const [first, second] = await Promise.all([store.admit(admissionRequest(identity())), store.admit(admissionRequest(identity()))]);
      expect([first.disposition, second.disposition].sort()).toEqual(['admitted', 'in_progress']);
      const turn = await storedTurn(identity());
      for (const admission of [first, second]) {
        expect('turn' in admission ? admission.turn.turnId : admission.disposition).toBe(turn?.turnId);
      }
    });
  });
}
