import { describe, expect, it } from 'vitest';
import { isLegalMove } from '../../../src/turn_state/ledger_types.js';
import type { Lease } from '../../../src/turn_state/turn_types.js';
import { admissionRequest, admitNew, expectIllegalMove, expectStale, findOp, identity, modelTurn, opKey, snapshot, turnOf } from './fixtures.js';
import { useHarness, type Harness, type MakeHarness } from './harness.js';

const MINUTE = 60_000;

/** A turn whose step 1 holds two writes that ask for approval and a read that ran, parked until both are answered. */
async function askingTurn(h: Harness, messageId = 'msg-1', timeoutMs = 60 * MINUTE): Promise<{ turnId: string; lease: Lease }> {
  const { lease } = await admitNew(h.store, identity(messageId));
  await h.store.recordModelTurn(
    lease,
    modelTurn(1, [
      { id: 'write-a', name: 'save_note', effect: 'write' },
      { id: 'write-b', name: 'open_ticket', effect: 'write' },
      { id: 'read', effect: 'read' },
    ]),
  );
  await h.store.moveOp(lease, opKey(lease.turnId, 1, 'read'), { to: 'APPLIED', result: 'read at once' });
  await h.store.awaitApproval(lease, [opKey(lease.turnId, 1, 'write-a'), opKey(lease.turnId, 1, 'write-b')], timeoutMs);
  return { turnId: lease.turnId, lease };
}

const answer = (turnId: string, call: string, verdict: 'approved' | 'denied', note: string | null = null) => ({ call: opKey(turnId, 1, call), verdict, by: 'discord:42', note });

export function describeApprovals(makeHarness: MakeHarness): void {
  describe('approval before a call (DESIGN §9.2)', () => {
    const harness = useHarness(makeHarness);

    it('awaitApproval parks the turn with its lease released and its calls asking until their time runs out', async () => {
      const h = harness();
      const now = h.clock.now();
      const { turnId } = await askingTurn(h);

      expect(await turnOf(h.store, turnId)).toMatchObject({ status: 'AWAITING_APPROVAL', leaseToken: null, leaseExpiresAt: null, resolutionUntold: false });
      const ops = await h.store.listOps(turnId);
      expect(findOp(ops, 1, 'write-a')).toMatchObject({ state: 'AWAITING_APPROVAL', approval: { requestedAt: now, expiresAt: now + 60 * MINUTE, messageId: null, decision: null } });
      expect(findOp(ops, 1, 'read')).toMatchObject({ state: 'APPLIED', approval: null });
      expect(await h.store.admit(admissionRequest(identity()))).toMatchObject({ disposition: 'awaiting_approval', turn: { turnId } });
    });

    it('awaitApproval is fenced, and takes only calls that never ran: nothing is parked otherwise', async () => {
      const h = harness();
      const { lease } = await admitNew(h.store, identity());
      await h.store.recordModelTurn(lease, modelTurn(1, [{ id: 'write-a', effect: 'write' }]));
      const key = opKey(lease.turnId, 1, 'write-a');
      const stale = { ...lease, token: 'someone-else' };
      await expectStale(h.store.awaitApproval(stale, [key], MINUTE));
      await h.store.moveOp(lease, key, { to: 'RUNNING' });
      const before = await snapshot(h.store, lease.turnId);
      await expectIllegalMove(h.store.awaitApproval(lease, [key], MINUTE));
      expect(await snapshot(h.store, lease.turnId)).toEqual(before);
    });

    it('each answer is kept with who, when and the note; the last makes the turn resumable and still to be continued', async () => {
      const h = harness();
      const { turnId } = await askingTurn(h);
      await h.clock.advance(5_000);

      const first = await h.store.answerApproval(answer(turnId, 'write-a', 'approved'));
      expect(first).toMatchObject({ kind: 'recorded', remaining: 1, turn: { status: 'AWAITING_APPROVAL' }, op: { state: 'APPROVED' } });
      const last = await h.store.answerApproval(answer(turnId, 'write-b', 'denied', 'not today'));
      expect(last).toMatchObject({ kind: 'recorded', remaining: 0, turn: { status: 'SUSPENDED', suspensionReason: 'approvals answered', resolutionUntold: true } });
      const ops = await h.store.listOps(turnId);
      expect(findOp(ops, 1, 'write-b')).toMatchObject({ state: 'DENIED', approval: { decision: { verdict: 'denied', by: 'discord:42', at: h.clock.now(), note: 'not today' } } });
      expect((await h.store.listResolvedUntold('discord')).map((turn) => turn.turnId)).toEqual([turnId]);
    });

    it('names a call by its stable key, as a button does; an answer to a call that no longer waits changes nothing and says what became of it', async () => {
      const h = harness();
      const { turnId } = await askingTurn(h);
      const asking = findOp(await h.store.listOps(turnId), 1, 'write-a');
      expect((await h.store.findApproval(asking.idempotencyKey))?.toolCallId).toBe('write-a');

      expect(await h.store.answerApproval({ approvalId: asking.idempotencyKey, verdict: 'approved', by: 'discord:42', note: null })).toMatchObject({ kind: 'recorded' });
      const before = await snapshot(h.store, turnId);
      const again = await h.store.answerApproval({ approvalId: asking.idempotencyKey, verdict: 'denied', by: 'discord:43', note: null });
      expect(again).toMatchObject({ kind: 'refused', reason: 'not_awaiting_approval', op: { state: 'APPROVED', approval: { decision: { by: 'discord:42' } } } });
      expect(await snapshot(h.store, turnId)).toEqual(before);
      expect(await h.store.answerApproval({ approvalId: 'hf_nothing', verdict: 'approved', by: 'discord:42', note: null })).toEqual({ kind: 'refused', reason: 'call_not_found', op: undefined });
    });

    it('an approved call runs as any call once its turn is claimed: APPROVED → RUNNING → APPLIED; a denied one never moves', async () => {
      const h = harness();
      const { turnId, lease } = await askingTurn(h);
      await h.store.answerApproval(answer(turnId, 'write-a', 'approved'));
      await h.store.answerApproval(answer(turnId, 'write-b', 'denied'));
      const claim = await h.store.claimResume(turnId, lease.generation);
      if (!claim.won) throw new Error('the claim was lost');

      await h.store.moveOp(claim.lease, opKey(turnId, 1, 'write-a'), { to: 'RUNNING' });
      expect(await h.store.moveOp(claim.lease, opKey(turnId, 1, 'write-a'), { to: 'APPLIED', result: 'done' })).toMatchObject({ state: 'APPLIED', approval: { decision: { verdict: 'approved' } } });
      await expectIllegalMove(h.store.moveOp(claim.lease, opKey(turnId, 1, 'write-b'), { to: 'RUNNING' }));
      expect(isLegalMove('APPROVED', 'APPLIED', 'read')).toBe(true);
      expect(isLegalMove('APPROVED', 'APPLIED', 'write')).toBe(false);
    });

    it('a request past its time is denied by timeout, by the store’s clock, once', async () => {
      const h = harness();
      const { turnId } = await askingTurn(h, 'msg-1', 10 * MINUTE);
      await h.clock.advance(10 * MINUTE - 1);
      expect(await h.store.expireApprovals()).toEqual([]);
      await h.clock.advance(1);

      expect((await h.store.expireApprovals()).map((op) => [op.turnId, op.toolCallId, op.state])).toEqual([
        [turnId, 'write-a', 'DENIED'],
        [turnId, 'write-b', 'DENIED'],
      ]);
      expect(await h.store.expireApprovals()).toEqual([]);
      const ops = await h.store.listOps(turnId);
      expect(findOp(ops, 1, 'write-a')).toMatchObject({ state: 'DENIED', approval: { decision: { verdict: 'denied', by: 'timeout', note: null } } });
      expect(await turnOf(h.store, turnId)).toMatchObject({ status: 'SUSPENDED', resolutionUntold: true });
    });

    it('keeps which message asks, and an admin’s "always allow here" as a rule of that channel only', async () => {
      const h = harness();
      const { turnId } = await askingTurn(h);
      await h.store.noteApprovalMessage(opKey(turnId, 1, 'write-a'), 'message-7');
      expect(findOp(await h.store.listOps(turnId), 1, 'write-a').approval?.messageId).toBe('message-7');

      await h.store.answerApproval({ ...answer(turnId, 'write-a', 'approved'), allowHere: true });
      await h.store.answerApproval({ ...answer(turnId, 'write-b', 'approved'), allowHere: true });
      expect(await h.store.approvalRules({ source: 'discord', channelId: 'chan-1' })).toEqual([
        { toolName: 'open_ticket', allowedBy: 'discord:42', allowedAt: h.clock.now() },
        { toolName: 'save_note', allowedBy: 'discord:42', allowedAt: h.clock.now() },
      ]);
      expect(await h.store.approvalRules({ source: 'discord', channelId: 'chan-2' })).toEqual([]);
      await h.reopen();
      expect(await h.store.approvalRules({ source: 'discord', channelId: 'chan-1' })).toHaveLength(2);
    });
  });
}
