import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/llm/protocol.js';
import type { Lease } from '../../../src/turn_state/turn_types.js';
import { admissionRequest, admitNew, driveOp, expectStale, findOp, identity, modelTurn, opKey, snapshot, turnOf } from './fixtures.js';
import { useHarness, type Harness, type MakeHarness } from './harness.js';

/** A turn whose step 1 holds two write calls left OUTCOME_UNKNOWN and an applied read, parked for a verdict on both writes. */
async function parkedTurn(h: Harness, messageId = 'msg-1'): Promise<{ turnId: string; lease: Lease }> {
  const { lease } = await admitNew(h.store, identity(messageId));
  await h.store.recordModelTurn(
    lease,
    modelTurn(1, [
      { id: 'write-a', effect: 'write' },
      { id: 'write-b', effect: 'write' },
      { id: 'read', effect: 'read' },
    ]),
  );
  await driveOp(h.store, lease, opKey(lease.turnId, 1, 'write-a'), 'OUTCOME_UNKNOWN');
  await driveOp(h.store, lease, opKey(lease.turnId, 1, 'write-b'), 'OUTCOME_UNKNOWN');
  await driveOp(h.store, lease, opKey(lease.turnId, 1, 'read'), 'APPLIED');
  await h.store.awaitResolution(lease, [opKey(lease.turnId, 1, 'write-a'), opKey(lease.turnId, 1, 'write-b')], 'uncertain writes');
  return { turnId: lease.turnId, lease };
}

const verdict = (turnId: string, call: string, applied: boolean, text: string | null = null) => ({
  call: opKey(turnId, 1, call),
  verdict: applied ? ('applied' as const) : ('not_applied' as const),
  text,
  by: 'cli:alice',
});

export function describeResolution(makeHarness: MakeHarness): void {
  describe('resolution by an operator (DESIGN §9.1)', () => {
    const harness = useHarness(makeHarness);

    it('awaitResolution parks the turn with its lease released and its uncertain calls awaiting a verdict', async () => {
      const h = harness();
      const { turnId } = await parkedTurn(h);

      const turn = await turnOf(h.store, turnId);
      expect(turn).toMatchObject({ status: 'AWAITING_RESOLUTION', leaseToken: null, leaseExpiresAt: null, resolutionUntold: false });
      const ops = await h.store.listOps(turnId);
      expect(findOp(ops, 1, 'write-a')).toMatchObject({ state: 'MANUAL_RESOLUTION_REQUIRED', verdict: null });
      expect(findOp(ops, 1, 'write-b').state).toBe('MANUAL_RESOLUTION_REQUIRED');
      expect(findOp(ops, 1, 'read').state).toBe('APPLIED');
      expect(await h.store.listSuspended({ source: 'discord', channelId: 'chan-1' })).toEqual([]);
      expect(await h.operator.census()).toMatchObject({ awaitingResolution: 1, callsAwaitingVerdict: 2, suspended: 0, active: 0 });
    });

    it('a parked turn’s message is not admitted again: it awaits its verdict', async () => {
      const h = harness();
      const { turnId } = await parkedTurn(h);

      expect(await h.store.admit(admissionRequest(identity()))).toMatchObject({ disposition: 'awaiting_resolution', turn: { turnId, status: 'AWAITING_RESOLUTION' } });
      expect((await turnOf(h.store, turnId)).status).toBe('AWAITING_RESOLUTION');
    });

    it('awaitResolution is fenced: a stale lease parks nothing', async () => {
      const h = harness();
      const { lease } = await admitNew(h.store, identity());
      await h.store.recordModelTurn(lease, modelTurn(1, [{ id: 'write-a', effect: 'write' }]));
      await driveOp(h.store, lease, opKey(lease.turnId, 1, 'write-a'), 'OUTCOME_UNKNOWN');
      const stale = { ...lease, revision: lease.revision - 1 };
      const before = await snapshot(h.store, lease.turnId);

      await expectStale(h.store.awaitResolution(stale, [opKey(lease.turnId, 1, 'write-a')], 'uncertain'));

      expect(await snapshot(h.store, lease.turnId)).toEqual(before);
    });

    it('a verdict is recorded with who gave it and when; the last one makes the turn resumable with its window restarted', async () => {
      const h = harness();
      const { turnId } = await parkedTurn(h);
      await h.clock.advance(60_000);

      const first = await h.operator.resolveCall(verdict(turnId, 'write-a', true, 'ticket T-42 was created'));
      expect(first).toMatchObject({ kind: 'recorded', remaining: 1, turn: { status: 'AWAITING_RESOLUTION' } });
      expect(first.kind === 'recorded' && first.op).toMatchObject({ state: 'RESOLVED_APPLIED', verdict: { by: 'cli:alice', at: h.clock.now(), text: 'ticket T-42 was created' } });
      await h.clock.advance(1_000);

      const last = await h.operator.resolveCall(verdict(turnId, 'write-b', false, 'nothing at the target'));
      expect(last).toMatchObject({ kind: 'recorded', remaining: 0, op: { state: 'RESOLVED_NOT_APPLIED', verdict: { text: 'nothing at the target' } } });
      const turn = await turnOf(h.store, turnId);
      expect(turn).toMatchObject({ status: 'SUSPENDED', resolutionUntold: true, lastProgressAt: h.clock.now() });
      expect((await h.store.listSuspended({ source: 'discord', channelId: 'chan-1' })).map((t) => t.turnId)).toEqual([turnId]);
      expect(await h.operator.census()).toMatchObject({ awaitingResolution: 0, callsAwaitingVerdict: 0, suspended: 1 });
    });

    it('a verdict is final, and only a call awaiting one may get it', async () => {
      const h = harness();
      const { turnId } = await parkedTurn(h);
      await h.operator.resolveCall(verdict(turnId, 'write-a', true));

      expect(await h.operator.resolveCall(verdict(turnId, 'write-a', false))).toMatchObject({ kind: 'refused', reason: 'not_awaiting_verdict', op: { state: 'RESOLVED_APPLIED' } });
      expect(await h.operator.resolveCall(verdict(turnId, 'read', true))).toMatchObject({ kind: 'refused', reason: 'not_awaiting_verdict', op: { state: 'APPLIED' } });
      expect(await h.operator.resolveCall(verdict(turnId, 'no-such-call', true))).toEqual({ kind: 'refused', reason: 'call_not_found', op: undefined });
      expect(await h.operator.resolveCall(verdict('no-such-turn', 'write-a', true))).toEqual({ kind: 'refused', reason: 'turn_not_found', op: undefined });
      expect(findOp(await h.store.listOps(turnId), 1, 'write-a').verdict?.text).toBeNull();
    });

    it('an OUTCOME_UNKNOWN call of a running turn takes no verdict: the turn is not parked', async () => {
      const h = harness();
      const { lease } = await admitNew(h.store, identity());
      await h.store.recordModelTurn(lease, modelTurn(1, [{ id: 'write-a', effect: 'write' }]));
      await driveOp(h.store, lease, opKey(lease.turnId, 1, 'write-a'), 'OUTCOME_UNKNOWN');

      expect(await h.operator.resolveCall(verdict(lease.turnId, 'write-a', true))).toMatchObject({ kind: 'refused', reason: 'not_awaiting_verdict' });
      expect((await turnOf(h.store, lease.turnId)).status).toBe('ACTIVE');
    });

    it('a parked turn never expires; once resolved, the resume window applies again', async () => {
      const h = harness();
      const { turnId } = await parkedTurn(h);
      await h.clock.advance(h.timings.resumeTtlMs * 3);
      await h.store.sweepRetention();
      expect((await turnOf(h.store, turnId)).status).toBe('AWAITING_RESOLUTION');

      await h.operator.resolveCall(verdict(turnId, 'write-a', true));
      await h.operator.resolveCall(verdict(turnId, 'write-b', true));
      await h.clock.advance(h.timings.resumeTtlMs - 1_000);
      await h.store.sweepRetention();
      expect((await turnOf(h.store, turnId)).status).toBe('SUSPENDED');
      await h.clock.advance(1_000);
      await h.store.sweepRetention();
      expect((await turnOf(h.store, turnId)).status).toBe('TERMINAL_EXPIRED');
    });

    it('the requester is told of a resolution once: by whoever marks it first, or by the resume that claims the turn', async () => {
      const h = harness();
      const told = await parkedTurn(h, 'told');
      const claimed = await parkedTurn(h, 'claimed');
      for (const { turnId } of [told, claimed]) {
        await h.operator.resolveCall(verdict(turnId, 'write-a', true));
        await h.operator.resolveCall(verdict(turnId, 'write-b', true));
      }
      expect((await h.store.listResolvedUntold('discord')).map((t) => t.turnId)).toEqual([told.turnId, claimed.turnId]);
      expect(await h.store.listResolvedUntold('console')).toEqual([]);

      expect(await h.store.markResolutionTold(told.turnId)).toBe(true);
      expect(await h.store.markResolutionTold(told.turnId)).toBe(false);
      const turn = await turnOf(h.store, claimed.turnId);
      expect(await h.store.claimResume(claimed.turnId, turn.generation)).toMatchObject({ won: true, turn: { resolutionUntold: false }, toldResolution: true });
      expect(await h.store.listResolvedUntold('discord')).toEqual([]);
      expect(await h.store.markResolutionTold(claimed.turnId)).toBe(false);
      expect(await h.store.claimResume(told.turnId, (await turnOf(h.store, told.turnId)).generation)).toMatchObject({ won: true, toldResolution: false });
    });

    it('lists turns for operators: by status and channel, with the calls awaiting a verdict; by id prefix; in detail', async () => {
      const h = harness();
      const { turnId } = await parkedTurn(h);
      const { lease: other } = await admitNew(h.store, identity('other', 'chan-2'));
      await h.store.complete(other, 'done');

      const attention = await h.operator.listTurns({ statuses: ['AWAITING_RESOLUTION', 'SUSPENDED'] });
      expect(attention.map((o) => [o.turn.turnId, o.callsAwaitingVerdict, o.reply])).toEqual([[turnId, 2, null]]);
      expect((await h.operator.listTurns({ replyPending: true })).map((o) => [o.turn.turnId, o.reply])).toEqual([[other.turnId, 'pending']]);
      expect((await h.operator.listTurns({ channelId: 'chan-2' })).map((o) => o.turn.turnId)).toEqual([other.turnId]);
      expect((await h.operator.listTurns({})).map((o) => o.turn.turnId)).toEqual([other.turnId, turnId]);
      expect((await h.operator.turnsWithPrefix(turnId.slice(0, turnId.length - 1), 2)).map((t) => t.turnId)).toContain(turnId);
      expect(await h.operator.turnsWithPrefix('no-such-prefix', 2)).toEqual([]);

      const detail = await h.operator.turnDetail(turnId);
      expect(detail?.ops.map((op) => [op.toolCallId, op.state])).toEqual([
        ['read', 'APPLIED'],
        ['write-a', 'MANUAL_RESOLUTION_REQUIRED'],
        ['write-b', 'MANUAL_RESOLUTION_REQUIRED'],
      ]);
      expect(detail?.reply).toBeNull();
      expect((await h.operator.turnDetail(other.turnId))?.reply).toMatchObject({ state: 'pending', partsDelivered: 0 });
      expect(await h.operator.turnDetail('no-such-turn')).toBeUndefined();
    });

    it('shows operators what a turn did, its transcript and checkpoints until its payload is dropped, and lists turns by requester, age and count', async () => {
      const h = harness();
      const { lease: first } = await admitNew(h.store, identity('first'));
      const said: Message[] = [
        { role: 'user', content: [{ type: 'text', text: 'hello' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'hi there' }] },
      ];
      await h.clock.advance(1_000);
      await h.store.checkpoint(first, { append: said, state: { step: 1 }, progressed: true });
      const secondAt = h.clock.now();
      const second = await h.store.admit(admissionRequest(identity('second'), 'user-2'));
      if (second.disposition !== 'admitted') throw new Error('expected the second message to be admitted');

      expect((await h.operator.listTurns({ requesterId: 'user-2' })).map((o) => o.turn.turnId)).toEqual([second.turn.turnId]);
      expect((await h.operator.listTurns({ createdSince: secondAt })).map((o) => o.turn.turnId)).toEqual([second.turn.turnId]);
      expect((await h.operator.listTurns({ limit: 1 })).map((o) => o.turn.turnId)).toEqual([second.turn.turnId]);
      expect(await h.operator.listTurns({ requesterId: 'user-1', createdSince: secondAt })).toEqual([]);

      const work = await h.operator.turnWork(first.turnId);
      expect(work?.transcript).toEqual(said);
      expect(work?.checkpoints.map((mark) => mark.transcriptLength).at(-1)).toBe(2);
      expect(work?.checkpoints.at(-1)?.createdAt).toBe(secondAt);
      expect(work?.modelCalls).toEqual([]);

      await h.store.complete(first, 'hi there');
      expect(await h.operator.turnWork(first.turnId)).toEqual({ transcript: [], checkpoints: [], modelCalls: [] });
      expect(await h.operator.turnWork('no-such-turn')).toBeUndefined();
    });

    it('keeps every move of every call, when and by whom: the bot’s, a sweep’s, a verdict’s and an approval’s, until the ledger is swept', async () => {
      const h = harness();
      const start = h.clock.now();
      const { turnId } = await parkedTurn(h);
      await h.clock.advance(5_000);
      await h.operator.resolveCall(verdict(turnId, 'write-a', true, 'T-7'));
      const moves = (await h.operator.turnDetail(turnId))?.moves.map((move) => [move.toolCallId, move.state, move.at - start, move.by]);
      expect(moves?.filter(([call]) => call === 'write-a')).toEqual([
        ['write-a', 'PREPARED', 0, null],
        ['write-a', 'RUNNING', 0, null],
        ['write-a', 'OUTCOME_UNKNOWN', 0, null],
        ['write-a', 'MANUAL_RESOLUTION_REQUIRED', 0, null],
        ['write-a', 'RESOLVED_APPLIED', 5_000, 'cli:alice'],
      ]);
      expect(moves?.filter(([call]) => call === 'read').map(([, state]) => state)).toEqual(['PREPARED', 'RUNNING', 'APPLIED']);

      const { lease: mixed } = await admitNew(h.store, identity('mixed'));
      await h.store.recordModelTurn(
        mixed,
        modelTurn(1, [
          { id: 'w', effect: 'write' },
          { id: 'r', effect: 'read' },
        ]),
      );
      await driveOp(h.store, mixed, opKey(mixed.turnId, 1, 'w'), 'OUTCOME_UNKNOWN');
      await driveOp(h.store, mixed, opKey(mixed.turnId, 1, 'r'), 'APPLIED');
      await h.store.awaitResolution(mixed, [opKey(mixed.turnId, 1, 'w'), opKey(mixed.turnId, 1, 'r')], 'uncertain');
      const parkedMoves = (await h.operator.turnDetail(mixed.turnId))?.moves.map((move) => `${move.toolCallId} ${move.state}`);
      expect(parkedMoves?.filter((move) => move.endsWith('MANUAL_RESOLUTION_REQUIRED'))).toEqual(['w MANUAL_RESOLUTION_REQUIRED']);
      expect(findOp(await h.store.listOps(mixed.turnId), 1, 'r').state).toBe('APPLIED');

      const { lease: asking } = await admitNew(h.store, identity('asking'));
      await h.store.recordModelTurn(asking, modelTurn(1, [{ id: 'w', effect: 'write' }]));
      await h.store.awaitApproval(asking, [opKey(asking.turnId, 1, 'w')], 60_000);
      await h.operator.answerApproval({ call: opKey(asking.turnId, 1, 'w'), verdict: 'approved', by: 'web:ana', note: null });
      expect((await h.operator.turnDetail(asking.turnId))?.moves.map((move) => [move.state, move.by])).toEqual([
        ['PREPARED', null],
        ['AWAITING_APPROVAL', null],
        ['APPROVED', 'web:ana'],
      ]);

      const { lease: cut } = await admitNew(h.store, identity('cut'));
      await h.store.recordModelTurn(cut, modelTurn(1, [{ id: 'w', effect: 'write' }]));
      await h.store.moveOp(cut, opKey(cut.turnId, 1, 'w'), { to: 'RUNNING' });
      await h.clock.advance(h.timings.leaseTtlMs + 1);
      await h.store.sweepExpiredLeases();
      expect((await h.operator.turnDetail(cut.turnId))?.moves.map((move) => move.state)).toEqual(['PREPARED', 'RUNNING', 'OUTCOME_UNKNOWN']);

      const { lease: done } = await admitNew(h.store, identity('done'));
      await h.store.recordModelTurn(done, modelTurn(1, [{ id: 'r', effect: 'read' }]));
      await driveOp(h.store, done, opKey(done.turnId, 1, 'r'), 'APPLIED');
      await h.store.complete(done, 'done');
      await h.clock.advance(h.timings.ledgerRetentionMs + 1);
      await h.store.sweepRetention();
      expect(await h.operator.turnDetail(done.turnId)).toBeUndefined();
      expect(await h.operator.checkIntegrity()).toEqual([]);
      expect((await h.operator.turnDetail(turnId))?.moves.filter((move) => move.toolCallId === 'write-a')).toHaveLength(5);
    });
  });
}
