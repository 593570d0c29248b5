import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/llm/protocol.js';
import { NEVER_EXPIRING_OP_STATES, type OpState } from '../../../src/turn_state/ledger_types.js';
import type { Lease } from '../../../src/turn_state/turn_types.js';
import { admissionRequest, admitNew, byKey, driveOp, expectStale, findOp, identity, modelTurn, opKey, resumableOf, snapshot, toolResultMessage, turnOf, userMessage } from './fixtures.js';
import { useHarness, type Harness, type MakeHarness } from './harness.js';

/** Records one op per state at `step` and drives each to the state it is named after. */
async function opsIn(h: Harness, lease: Lease, states: readonly OpState[], step = 1): Promise<void> {
  await h.store.recordModelTurn(
    lease,
    modelTurn(
      step,
      states.map((state) => ({ id: state })),
    ),
  );
  for (const state of states) await driveOp(h.store, lease, opKey(lease.turnId, step, state), state);
}

const SETTLED: readonly OpState[] = ['APPLIED', 'DEFINITELY_FAILED', 'OUTCOME_UNKNOWN', 'RECONCILED_APPLIED', 'RECONCILED_FAILED', 'MANUAL_RESOLUTION_REQUIRED'];
const ENDED_OP_STATES: readonly OpState[] = ['PREPARED', ...SETTLED];

export function describeSweeps(makeHarness: MakeHarness): void {
  describe('sweeps', () => {
    const harness = useHarness(makeHarness);

    it('sweepOnStartup suspends every ACTIVE turn, marks its RUNNING ops OUTCOME_UNKNOWN and leaves the rest alone', async () => {
      const h = harness();
      const { lease: expired } = await admitNew(h.store, identity('expired'));
      await opsIn(h, expired, ['RUNNING', 'PREPARED']);
      await h.store.recordModelTurn(expired, modelTurn(2, [{ id: 'second-running' }]));
      await driveOp(h.store, expired, opKey(expired.turnId, 2, 'second-running'), 'RUNNING');
      await h.clock.advance(h.timings.leaseTtlMs + 5_000);
      const { lease: live } = await admitNew(h.store, identity('live'));
      await opsIn(h, live, ['PREPARED', 'RUNNING', ...SETTLED]);
      const { lease: suspended } = await admitNew(h.store, identity('suspended'));
      await h.store.suspend(suspended, 'provider overloaded');
      const { lease: ended } = await admitNew(h.store, identity('ended'));
      await h.store.finish(ended, 'TERMINAL_COMPLETED');
      const before = {
        live: await snapshot(h.store, live.turnId),
        expired: await snapshot(h.store, expired.turnId),
        suspended: await snapshot(h.store, suspended.turnId),
        ended: await snapshot(h.store, ended.turnId),
      };

      const uncertain = (turnId: string, step: number, toolCallId: string) => ({
        turnId,
        step,
        toolCallId,
        channelId: 'chan-1',
        requesterId: 'user-1',
        toolName: 'lookup',
        effect: 'read',
        input: { query: `weather in city ${toolCallId}` },
        error: expect.any(String) as unknown,
      });
      expect(await h.store.sweepOnStartup()).toEqual({
        suspendedTurns: 2,
        unknownOps: 3,
        turnIds: [expired.turnId, live.turnId],
        uncertainCalls: [uncertain(expired.turnId, 1, 'RUNNING'), uncertain(expired.turnId, 2, 'second-running'), uncertain(live.turnId, 1, 'RUNNING')],
      });

      for (const lease of [live, expired]) {
        expect(await turnOf(h.store, lease.turnId)).toMatchObject({ status: 'SUSPENDED', generation: 1, leaseToken: null });
        const opsBefore = lease === live ? before.live.ops : before.expired.ops;
        for (const op of await h.store.listOps(lease.turnId)) {
          const was = findOp(opsBefore, op.step, op.toolCallId);
          if (was.state === 'RUNNING') expect(op).toEqual({ ...was, state: 'OUTCOME_UNKNOWN', error: op.error, updatedAt: op.updatedAt });
          else expect(op).toEqual(was);
        }
      }
      expect(await snapshot(h.store, suspended.turnId)).toEqual(before.suspended);
      expect(await snapshot(h.store, ended.turnId)).toEqual(before.ended);
      await expectStale(h.store.moveOp(live, opKey(live.turnId, 1, 'PREPARED'), { to: 'RUNNING' }));
      expect((await h.store.listSuspended({ source: 'discord', channelId: 'chan-1' })).map((t) => t.turnId).sort()).toEqual([live.turnId, expired.turnId, suspended.turnId].sort());
      expect((await h.store.claimResume(live.turnId, 1)).won).toBe(true);
      expect(await h.store.sweepOnStartup()).toMatchObject({ suspendedTurns: 1, unknownOps: 0 });
    });

    it('sweepExpiredLeases suspends only the ACTIVE turns whose lease has expired', async () => {
      const h = harness();
      const { lease: lapsed } = await admitNew(h.store, identity('lapsed'));
      await opsIn(h, lapsed, ['RUNNING', 'APPLIED']);
      const { lease: beating } = await admitNew(h.store, identity('beating'));
      await opsIn(h, beating, ['RUNNING']);
      await h.clock.advance(20_000);
      await h.store.heartbeat(beating);
      const { lease: young } = await admitNew(h.store, identity('young'));
      await opsIn(h, young, ['RUNNING']);
      await h.clock.advance(h.timings.leaseTtlMs - 20_000 - 1);
      const untouched = { beating: await snapshot(h.store, beating.turnId), young: await snapshot(h.store, young.turnId) };

      expect(await h.store.sweepExpiredLeases()).toEqual({ suspendedTurns: 0, unknownOps: 0, turnIds: [], uncertainCalls: [] });
      expect((await turnOf(h.store, lapsed.turnId)).status).toBe('ACTIVE');
      await h.clock.advance(1);
      expect(await h.store.sweepExpiredLeases()).toMatchObject({ suspendedTurns: 1, unknownOps: 1 });

      expect(await turnOf(h.store, lapsed.turnId)).toMatchObject({ status: 'SUSPENDED', leaseToken: null });
      const lapsedOps = await h.store.listOps(lapsed.turnId);
      expect(findOp(lapsedOps, 1, 'RUNNING').state).toBe('OUTCOME_UNKNOWN');
      expect(findOp(lapsedOps, 1, 'APPLIED')).toMatchObject({ state: 'APPLIED', result: 'result: applied' });
      expect({ beating: await snapshot(h.store, beating.turnId), young: await snapshot(h.store, young.turnId) }).toEqual(untouched);
      await h.store.moveOp(beating, opKey(beating.turnId, 1, 'RUNNING'), { to: 'APPLIED', result: 'done' });
      await h.store.checkpoint(young, { append: [userMessage('still mine')], state: {}, progressed: true });
    });

    it('a retention sweep keeps every payload it is not yet due to drop, large results and images included', async () => {
      const h = harness();
      const big = 'the quick brown fox jumps over the lazy dog. '.repeat(600);
      const picture: Message = {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: Buffer.from('a tiny picture').toString('base64') } },
        ],
      };
      const leases: Lease[] = [];
      for (const id of [identity('kept'), identity('ended')]) {
        const { lease } = await admitNew(h.store, id);
        await h.store.checkpoint(lease, { append: [picture], state: {}, progressed: true });
        await h.store.recordModelTurn(lease, modelTurn(1, [{ id: 'big' }]));
        await h.store.moveOp(lease, opKey(lease.turnId, 1, 'big'), { to: 'RUNNING' });
        await h.store.moveOp(lease, opKey(lease.turnId, 1, 'big'), { to: 'APPLIED', result: big });
        await h.store.checkpoint(lease, { append: [toolResultMessage('big', big)], state: { step: 1 }, progressed: true });
        leases.push(lease);
      }
      const [kept, ended] = leases as [Lease, Lease];
      await h.store.suspend(kept, 'provider overloaded');
      await h.store.finish(ended, 'TERMINAL_COMPLETED');
      const before = await snapshot(h.store, kept.turnId);
      expect(before.resumable?.transcript).toEqual([picture, modelTurn(1, [{ id: 'big' }]).assistant, toolResultMessage('big', big)]);
      expect(findOp(before.ops, 1, 'big').result).toBe(big);

      await h.clock.advance(h.timings.resumeTtlMs - 1);
      expect(await h.store.sweepRetention()).toEqual({ expiredTurns: 0, tombstonedTurns: 0, deletedOps: 0, deletedTurns: 0, deletedBlobs: 0, abandonedReplies: 0, deletedUsageRows: 0, turnIds: [] });
      await h.reopen();
      expect(await snapshot(h.store, kept.turnId)).toEqual(before);

      await h.clock.advance(h.timings.payloadRetentionMs);
      expect(await h.store.sweepRetention()).toMatchObject({ expiredTurns: 1, tombstonedTurns: 1, deletedOps: 0, deletedTurns: 0, turnIds: [kept.turnId, ended.turnId] });
      expect(findOp(await h.store.listOps(ended.turnId), 1, 'big').result).toBeNull();
      expect(findOp(await h.store.listOps(kept.turnId), 1, 'big').result).toBe(big);
    });

    it('retention, resume clock: a suspended turn expires resumeTtl after its last real progress', async () => {
      const h = harness();
      const start = h.clock.now();
      const { lease: idle } = await admitNew(h.store, identity('idle'));
      const { lease: progressed } = await admitNew(h.store, identity('progressed'));
      let progressAt = start;
      for (let tick = 1; tick <= 4; tick++) {
        await h.clock.advance(20_000);
        await h.store.heartbeat(idle);
        await h.store.heartbeat(progressed);
        if (tick === 2) {
          await h.store.checkpoint(progressed, { append: [userMessage('tool result')], state: { tick }, progressed: true });
          progressAt = h.clock.now();
        }
      }
      await h.store.checkpoint(idle, { append: [userMessage('guard')], state: {}, progressed: false });
      await h.store.suspend(idle, 'provider overloaded');
      await h.store.suspend(progressed, 'provider overloaded');
      expect((await turnOf(h.store, idle.turnId)).lastProgressAt).toBe(start);
      expect((await turnOf(h.store, progressed.turnId)).lastProgressAt).toBe(progressAt);
      const untouched = await snapshot(h.store, progressed.turnId);

      await h.clock.advance(start + h.timings.resumeTtlMs - 1 - h.clock.now());
      expect(await h.store.sweepRetention()).toMatchObject({ expiredTurns: 0 });
      expect((await turnOf(h.store, idle.turnId)).status).toBe('SUSPENDED');
      await h.clock.advance(1);
      expect(await h.store.sweepRetention()).toMatchObject({ expiredTurns: 1 });
      const expired = await resumableOf(h.store, idle.turnId);
      expect(expired.turn).toMatchObject({ status: 'TERMINAL_EXPIRED', payloadCompacted: true, leaseToken: null });
      expect(expired.transcript).toEqual([]);
      expect(expired.checkpoint).toBeUndefined();
      expect(await h.store.claimResume(idle.turnId, idle.generation)).toEqual({ won: false, reason: 'not_suspended' });

      await h.clock.advance(progressAt + h.timings.resumeTtlMs - 1 - h.clock.now());
      expect(await h.store.sweepRetention()).toMatchObject({ expiredTurns: 0 });
      expect(await snapshot(h.store, progressed.turnId)).toEqual(untouched);
      await h.clock.advance(1);
      expect(await h.store.sweepRetention()).toMatchObject({ expiredTurns: 1 });
      expect(await turnOf(h.store, progressed.turnId)).toMatchObject({ status: 'TERMINAL_EXPIRED', payloadCompacted: true });
      expect((await h.store.admit(admissionRequest(identity('progressed')))).disposition).toBe('already_processed');
    });

    it('retention, payload clock: a terminal turn loses its op results and errors, except unresolved ones', async () => {
      const h = harness();
      const { lease } = await admitNew(h.store);
      await opsIn(h, lease, ENDED_OP_STATES);
      await h.store.finish(lease, 'TERMINAL_FAILED', 'halted');
      const before = await snapshot(h.store, lease.turnId);

      await h.clock.advance(h.timings.payloadRetentionMs - 1);
      expect(await h.store.sweepRetention()).toMatchObject({ tombstonedTurns: 0, deletedOps: 0 });
      expect(await snapshot(h.store, lease.turnId)).toEqual(before);

      await h.clock.advance(2);
      expect(await h.store.sweepRetention()).toEqual({
        expiredTurns: 0,
        tombstonedTurns: 1,
        deletedOps: 0,
        deletedTurns: 0,
        deletedBlobs: 0,
        abandonedReplies: 0,
        deletedUsageRows: 0,
        turnIds: [lease.turnId],
      });
      const ops = await h.store.listOps(lease.turnId);
      expect(ops).toHaveLength(ENDED_OP_STATES.length);
      for (const op of ops) {
        const was = findOp(before.ops, op.step, op.toolCallId);
        const kept = NEVER_EXPIRING_OP_STATES.includes(op.state);
        expect(was.idempotencyKey).toMatch(/^hf_[0-9a-f]{40}$/);
        expect(op).toMatchObject({ state: was.state, idempotencyKey: was.idempotencyKey, result: kept ? was.result : null, error: kept ? was.error : null });
      }
      expect(findOp(ops, 1, 'OUTCOME_UNKNOWN').error).not.toBeNull();
      expect(await turnOf(h.store, lease.turnId)).toMatchObject({ status: 'TERMINAL_FAILED', payloadCompacted: true });
      expect((await h.store.admit(admissionRequest(identity()))).disposition).toBe('already_processed');
      expect(await h.store.sweepRetention()).toMatchObject({ tombstonedTurns: 0 });
    });

    it('retention, ledger clock: old ledger rows go, unresolved ones stay forever, and an empty tombstone goes', async () => {
      const h = harness();
      const { lease: mixed } = await admitNew(h.store, identity('mixed'));
      await opsIn(h, mixed, ENDED_OP_STATES);
      await h.store.finish(mixed, 'TERMINAL_COMPLETED');
      const { lease: bare } = await admitNew(h.store, identity('bare'));
      await h.store.finish(bare, 'TERMINAL_CANCELLED');
      const { lease: settled } = await admitNew(h.store, identity('settled'));
      await opsIn(h, settled, ['APPLIED']);
      await h.store.finish(settled, 'TERMINAL_COMPLETED');

      await h.clock.advance(h.timings.ledgerRetentionMs - 1);
      expect(await h.store.sweepRetention()).toMatchObject({ deletedOps: 0, deletedTurns: 0 });
      expect(await h.store.listOps(mixed.turnId)).toHaveLength(ENDED_OP_STATES.length);
      expect(await h.store.getTurn(bare.turnId)).toBeDefined();

      await h.clock.advance(2);
      const swept = await h.store.sweepRetention();
      expect(swept).toMatchObject({ expiredTurns: 0, deletedOps: ENDED_OP_STATES.length - 2 + 1, deletedTurns: 2 });
      expect([...swept.turnIds].sort()).toEqual([bare.turnId, settled.turnId].sort());
      const kept = byKey(await h.store.listOps(mixed.turnId)).map((op) => op.state);
      expect(kept.sort()).toEqual([...NEVER_EXPIRING_OP_STATES].sort());
      expect(await h.store.getTurn(mixed.turnId)).toBeDefined();
      for (const gone of [bare, settled]) {
        expect(await h.store.getTurn(gone.turnId)).toBeUndefined();
        expect(await h.store.listOps(gone.turnId)).toEqual([]);
      }
      expect(await h.storedTurn(identity('bare'))).toBeUndefined();

      await h.clock.advance(10 * 366 * 24 * 3_600_000);
      expect(await h.store.sweepRetention()).toMatchObject({ deletedOps: 0, deletedTurns: 0 });
      expect((await h.store.listOps(mixed.turnId)).map((op) => op.state).sort()).toEqual([...NEVER_EXPIRING_OP_STATES].sort());
      expect((await h.store.admit(admissionRequest(identity('mixed')))).disposition).toBe('already_processed');
      const fresh = await h.store.admit(admissionRequest(identity('bare')));
      expect(fresh).toMatchObject({ disposition: 'admitted', turn: { generation: 1, status: 'ACTIVE' } });
      if (fresh.disposition === 'admitted') expect(fresh.turn.turnId).not.toBe(bare.turnId);
    });
  });
}
