import { describe, expect, it } from 'vitest';
import type { TurnStore } from '../../../src/turn_state/turn_store.js';
import type { Lease } from '../../../src/turn_state/turn_types.js';
import { isIllegalOpMoveError, isStaleTurnError } from '../../../src/turn_state/errors.js';
import { admitNew, expectStale, findOp, identity, modelTurn, opKey, rejectionOf, snapshot, suspendAndClaim, turnOf, userMessage } from './fixtures.js';
import { useHarness, type Harness, type MakeHarness } from './harness.js';

/** A turn with one transcript row and one PREPARED op, and its owner's lease. */
interface Owned {
  readonly lease: Lease;
  readonly turnId: string;
}

async function ownedTurn(store: TurnStore): Promise<Owned> {
  const { lease } = await admitNew(store);
  await store.checkpoint(lease, { append: [userMessage('what is the weather?')], state: { step: 0 }, progressed: true });
  await store.recordModelTurn(lease, modelTurn(1, [{ id: 'call-1' }]));
  return { lease, turnId: lease.turnId };
}

interface StaleCause {
  readonly name: string;
  /** Makes a lease the turn no longer honours (the owner's own, or a copy of it). */
  readonly make: (h: Harness, owned: Owned) => Promise<Lease>;
}

const STALE_CAUSES: readonly StaleCause[] = [
  { name: 'a wrong token', make: (_h, { lease }) => Promise.resolve({ ...lease, token: `${lease.token}-forged` }) },
  {
    name: 'an old revision',
    make: async (h, { lease }) => {
      const old = { ...lease };
      await h.store.setRecoveryDeadline(lease, h.clock.now() + 60_000);
      return old;
    },
  },
  {
    name: 'an old generation (the owner before a suspend and resume)',
    make: async (h, { lease }) => {
      await suspendAndClaim(h.store, lease);
      return lease;
    },
  },
  {
    name: 'its own lease after suspending the turn',
    make: async (h, { lease }) => {
      await h.store.suspend(lease, 'provider overloaded');
      return lease;
    },
  },
  {
    name: 'its own lease after ending the turn',
    make: async (h, { lease }) => {
      await h.store.finish(lease, 'TERMINAL_COMPLETED');
      return lease;
    },
  },
  {
    name: 'an expired lease',
    make: async (h, { lease }) => {
      await h.clock.advance(h.timings.leaseTtlMs);
      return lease;
    },
  },
];

interface FencedWrite {
  readonly name: string;
  readonly write: (h: Harness, lease: Lease) => Promise<unknown>;
}

const FENCED_WRITES: readonly FencedWrite[] = [
  { name: 'heartbeat', write: (h, lease) => h.store.heartbeat(lease) },
  { name: 'setRecoveryDeadline', write: (h, lease) => h.store.setRecoveryDeadline(lease, h.clock.now() + 120_000) },
  { name: 'recordModelTurn', write: (h, lease) => h.store.recordModelTurn(lease, modelTurn(2, [{ id: 'call-2' }])) },
  { name: 'moveOp (a legal move)', write: (h, lease) => h.store.moveOp(lease, opKey(lease.turnId, 1, 'call-1'), { to: 'RUNNING' }) },
  { name: 'checkpoint', write: (h, lease) => h.store.checkpoint(lease, { append: [userMessage('late')], state: { step: 9 }, progressed: true }) },
  { name: 'suspend', write: (h, lease) => h.store.suspend(lease, 'late suspend') },
  { name: 'finish', write: (h, lease) => h.store.finish(lease, 'TERMINAL_COMPLETED', 'late finish') },
];

interface BumpingWrite {
  readonly name: string;
  /** Returns the lease to write with. */
  readonly prepare: (h: Harness, owned: Owned) => Promise<Lease>;
  readonly write: (h: Harness, lease: Lease) => Promise<unknown>;
  readonly check?: (h: Harness, turnId: string) => Promise<void>;
}

const DEADLINE_OFFSET = 90_000;

const BUMPING_WRITES: readonly BumpingWrite[] = [
  {
    name: 'setRecoveryDeadline',
    prepare: (_h, { lease }) => Promise.resolve(lease),
    write: (h, lease) => h.store.setRecoveryDeadline(lease, h.clock.now() + DEADLINE_OFFSET),
    check: async (h, turnId) => expect((await turnOf(h.store, turnId)).recoveryDeadlineAt).toBe(h.clock.now() + DEADLINE_OFFSET),
  },
  { name: 'recordModelTurn', prepare: (_h, { lease }) => Promise.resolve(lease), write: (h, lease) => h.store.recordModelTurn(lease, modelTurn(2, [{ id: 'call-2' }])) },
  {
    name: 'checkpoint',
    prepare: (_h, { lease }) => Promise.resolve(lease),
    write: (h, lease) => h.store.checkpoint(lease, { append: [], state: { step: 1 }, progressed: false }),
  },
  { name: 'suspend', prepare: (_h, { lease }) => Promise.resolve(lease), write: (h, lease) => h.store.suspend(lease, 'provider overloaded') },
  { name: 'finish', prepare: (_h, { lease }) => Promise.resolve(lease), write: (h, lease) => h.store.finish(lease, 'TERMINAL_COMPLETED') },
];

export function describeFencingAndLeases(makeHarness: MakeHarness): void {
  describe('fencing and leases', () => {
    const harness = useHarness(makeHarness);

    for (const cause of STALE_CAUSES) {
      describe(`a writer holding ${cause.name}`, () => {
        for (const fenced of FENCED_WRITES) {
          it(`is refused by ${fenced.name} with StaleTurnError and changes nothing`, async () => {
            const h = harness();
            const owned = await ownedTurn(h.store);
            const stale = await cause.make(h, owned);
            const staleCopy = { ...stale };
            const before = await snapshot(h.store, owned.turnId);

            await expectStale(fenced.write(h, stale));

            expect(await snapshot(h.store, owned.turnId)).toEqual(before);
            expect(stale).toEqual(staleCopy);
          });
        }
      });
    }

    it('still lets the true owner write after a forged or outdated lease was refused', async () => {
      const h = harness();
      const owned = await ownedTurn(h.store);
      const old = { ...owned.lease };
      await h.store.setRecoveryDeadline(owned.lease, h.clock.now() + 1_000);
      await expectStale(h.store.moveOp(old, opKey(owned.turnId, 1, 'call-1'), { to: 'RUNNING' }));
      await expectStale(h.store.moveOp({ ...owned.lease, token: 'forged' }, opKey(owned.turnId, 1, 'call-1'), { to: 'RUNNING' }));
      await h.store.moveOp(owned.lease, opKey(owned.turnId, 1, 'call-1'), { to: 'RUNNING' });
      expect(findOp(await h.store.listOps(owned.turnId), 1, 'call-1').state).toBe('RUNNING');
    });

    it("refuses a lease of one turn for another turn's op, changing nothing", async () => {
      const h = harness();
      const mine = await ownedTurn(h.store);
      const { lease: theirs } = await admitNew(h.store, identity('msg-theirs'));
      await h.store.recordModelTurn(theirs, modelTurn(1, [{ id: 'call-1' }]));
      const before = { mine: await snapshot(h.store, mine.turnId), theirs: await snapshot(h.store, theirs.turnId) };
      const error = await rejectionOf(h.store.moveOp(mine.lease, opKey(theirs.turnId, 1, 'call-1'), { to: 'RUNNING' }));
      expect(isStaleTurnError(error) || isIllegalOpMoveError(error), `expected StaleTurnError or IllegalOpMoveError, got ${String(error)}`).toBe(true);
      expect({ mine: await snapshot(h.store, mine.turnId), theirs: await snapshot(h.store, theirs.turnId) }).toEqual(before);
    });

    for (const bumping of BUMPING_WRITES) {
      it(`${bumping.name} bumps the revision by exactly 1 and keeps the lease's revision current`, async () => {
        const h = harness();
        const owned = await ownedTurn(h.store);
        const lease = await bumping.prepare(h, owned);
        const before = await turnOf(h.store, owned.turnId);
        expect(lease.revision).toBe(before.revision);
        await h.clock.advance(1_000);

        await bumping.write(h, lease);

        const after = await turnOf(h.store, owned.turnId);
        expect(after.revision).toBe(before.revision + 1);
        expect(lease.revision).toBe(after.revision);
        await bumping.check?.(h, owned.turnId);
      });
    }

    it('moveOp and heartbeat leave the revision alone and the same lease keeps writing', async () => {
      const h = harness();
      const { lease, turnId } = await ownedTurn(h.store);
      const revision = (await turnOf(h.store, turnId)).revision;
      await h.clock.advance(1_000);
      await h.store.moveOp(lease, opKey(turnId, 1, 'call-1'), { to: 'RUNNING' });
      await h.store.heartbeat(lease);
      await h.store.moveOp(lease, opKey(turnId, 1, 'call-1'), { to: 'APPLIED', result: 'sunny' });
      expect((await turnOf(h.store, turnId)).revision).toBe(revision);
      expect(lease.revision).toBe(revision);
      await h.store.checkpoint(lease, { append: [], state: { step: 1 }, progressed: true });
      expect((await turnOf(h.store, turnId)).revision).toBe(revision + 1);
    });

    it('a heartbeat extends the lease to now + ttl without bumping the revision or the progress time', async () => {
      const h = harness();
      const { turn, lease } = await admitNew(h.store);
      await h.clock.advance(10_000);

      await h.store.heartbeat(lease);

      const expiry = h.clock.now() + h.timings.leaseTtlMs;
      expect(lease.expiresAt).toBe(expiry);
      expect(await turnOf(h.store, turn.turnId)).toMatchObject({ leaseExpiresAt: expiry, revision: turn.revision, lastProgressAt: turn.lastProgressAt, status: 'ACTIVE' });
      expect(lease.revision).toBe(turn.revision);
    });

    it('heartbeats keep a turn owned long past its first TTL', async () => {
      const h = harness();
      const { lease } = await admitNew(h.store);
      for (let beat = 0; beat < 4; beat++) {
        await h.clock.advance(h.timings.leaseTtlMs - 1);
        await h.store.heartbeat(lease);
      }
      await h.store.setRecoveryDeadline(lease, h.clock.now() + 1_000);
      expect(await h.store.sweepExpiredLeases()).toEqual({ suspendedTurns: 0, unknownOps: 0, turnIds: [], uncertainCalls: [] });
      expect((await turnOf(h.store, lease.turnId)).status).toBe('ACTIVE');
    });

    it('a heartbeat never moves the expiry backwards when the wall clock steps back', async () => {
      const h = harness();
      const { lease } = await admitNew(h.store);
      await h.clock.advance(10_000);
      await h.store.heartbeat(lease);
      const expiry = lease.expiresAt;
      h.clock.setWallTime(h.clock.now() - 20_000);

      await h.store.heartbeat(lease);

      expect(lease.expiresAt).toBe(expiry);
      expect((await turnOf(h.store, lease.turnId)).leaseExpiresAt).toBe(expiry);
    });

    it('accepts a write in the last millisecond of the lease and refuses it at expiry', async () => {
      const h = harness();
      const { lease } = await admitNew(h.store);
      await h.clock.advance(h.timings.leaseTtlMs - 1);
      await h.store.setRecoveryDeadline(lease, h.clock.now() + 1_000);
      expect((await turnOf(h.store, lease.turnId)).leaseExpiresAt).toBe(lease.expiresAt);
      await h.clock.advance(lease.expiresAt - h.clock.now());
      await expectStale(h.store.setRecoveryDeadline(lease, h.clock.now() + 2_000));
    });
  });
}
