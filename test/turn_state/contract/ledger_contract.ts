import { describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../../src/turn_state/call_fingerprint.js';
import { isIllegalOpMoveError, isTurnStateUnavailable } from '../../../src/turn_state/errors.js';
import type { JsonObject } from '../../../src/llm/protocol.js';
import { OP_STATES, isLegalMove, type OpRecord } from '../../../src/turn_state/ledger_types.js';
import {
  admitNew,
  byKey,
  driveOp,
  OWNER_REACHABLE_STATES,
  expectIllegalMove,
  expectIntentError,
  findOp,
  modelTurn,
  moveTo,
  opKey,
  resumableOf,
  snapshot,
  suspendAndClaim,
  turnOf,
  userMessage,
} from './fixtures.js';
import { useHarness, type MakeHarness } from './harness.js';

function keysOf(ops: readonly OpRecord[]): Record<string, string> {
  return Object.fromEntries(ops.map((op) => [`${op.step}/${op.toolCallId}`, op.idempotencyKey]));
}

export function describeLedger(makeHarness: MakeHarness): void {
  describe('ledger', () => {
    const harness = useHarness(makeHarness);

    it('records the assistant message and one PREPARED op per intent before anything runs', async () => {
      const { store, clock } = harness();
      const { lease } = await admitNew(store);
      const question = userMessage('post the forecast');
      await store.checkpoint(lease, { append: [question], state: { step: 0 }, progressed: true });
      await clock.advance(5_000);
      const record = modelTurn(1, [
        { id: 'call-a' },
        { id: 'call-b', name: 'post_message', input: { channel: 'general', text: 'rain' }, effect: 'write' },
        { id: 'call-c', name: 'create_ticket', input: { title: 'umbrellas', tags: ['x', 'y'], priority: 2 }, effect: 'idempotent' },
      ]);

      const ops = await store.recordModelTurn(lease, record);

      expect(ops.map((op) => op.toolCallId)).toEqual(['call-a', 'call-b', 'call-c']);
      for (const [index, intent] of record.intents.entries()) {
        expect(ops[index]).toMatchObject({
          turnId: lease.turnId,
          step: 1,
          toolCallId: intent.toolCallId,
          toolName: intent.toolName,
          effect: intent.effect,
          input: intent.input,
          state: 'PREPARED',
          result: null,
          error: null,
          createdAt: clock.now(),
        });
        expect(ops[index]?.idempotencyKey).toMatch(/\S/);
        expect(ops[index]?.fingerprint).toMatch(/\S/);
      }
      expect(new Set(ops.map((op) => op.idempotencyKey)).size).toBe(3);
      expect(byKey(await store.listOps(lease.turnId))).toEqual(byKey(ops));
      expect((await resumableOf(store, lease.turnId)).transcript).toEqual([question, record.assistant]);
      expect((await turnOf(store, lease.turnId)).lastProgressAt).toBe(clock.now());
    });

    it("keeps every op's idempotency key through moves, a suspension and a resume", async () => {
      const { store } = harness();
      const { lease } = await admitNew(store);
      const recorded = await store.recordModelTurn(lease, modelTurn(1, [{ id: 'call-a' }, { id: 'call-b', effect: 'idempotent' }]));
      const keys = keysOf(recorded);
      // Each op's own key, so that "the same key" below cannot be two missing ones.
      expect(keys).toEqual({ '1/call-a': idempotencyKey(opKey(lease.turnId, 1, 'call-a')), '1/call-b': idempotencyKey(opKey(lease.turnId, 1, 'call-b')) });
      await driveOp(store, lease, opKey(lease.turnId, 1, 'call-a'), 'APPLIED');
      const resumed = await suspendAndClaim(store, lease);

      expect(keysOf(await store.listOps(lease.turnId))).toEqual(keys);
      expect(keysOf((await resumableOf(store, lease.turnId)).ops)).toEqual(keys);
      const running = await store.moveOp(resumed, opKey(lease.turnId, 1, 'call-b'), { to: 'RUNNING' });
      expect(running.idempotencyKey).toBe(keys['1/call-b']);
    });

    it('records the same call id at another step as a separate op with its own key', async () => {
      const { store } = harness();
      const { lease } = await admitNew(store);
      await store.recordModelTurn(lease, modelTurn(1, [{ id: 'call-1' }]));
      await driveOp(store, lease, opKey(lease.turnId, 1, 'call-1'), 'APPLIED');
      await store.recordModelTurn(lease, modelTurn(2, [{ id: 'call-1' }]));

      const ops = await store.listOps(lease.turnId);
      expect(ops).toHaveLength(2);
      expect(findOp(ops, 1, 'call-1').state).toBe('APPLIED');
      expect(findOp(ops, 2, 'call-1').state).toBe('PREPARED');
      expect(findOp(ops, 2, 'call-1').idempotencyKey).not.toBe(findOp(ops, 1, 'call-1').idempotencyKey);
    });

    it('fingerprints the tool and its input: the same call gets the same fingerprint, another input another', async () => {
      const { store } = harness();
      const { lease } = await admitNew(store);
      await store.recordModelTurn(lease, modelTurn(1, [{ id: 'x', input: { query: 'oslo' } }]));
      await store.recordModelTurn(
        lease,
        modelTurn(2, [
          { id: 'y', input: { query: 'oslo' } },
          { id: 'z', input: { query: 'bergen' } },
        ]),
      );
      const ops = await store.listOps(lease.turnId);
      expect(findOp(ops, 2, 'y').fingerprint).toBe(findOp(ops, 1, 'x').fingerprint);
      expect(findOp(ops, 2, 'z').fingerprint).not.toBe(findOp(ops, 1, 'x').fingerprint);
    });

    it('says which ops had a secret scrubbed out of their stored input, when recorded, listed and resumed', async () => {
      const { store } = harness();
      const { lease } = await admitNew(store);
      const record = modelTurn(1, [
        { id: 'keyed', input: { query: 'oslo', api_key: 'opaque-key-value-9f8e7d' } },
        { id: 'token', input: { query: 'oslo', note: 'use sk-proj-AbCdEf0123456789abcdefGHIJ for it', deep: [{ author: 'ada' }] } },
        { id: 'plain', input: { query: 'oslo', deep: [{ author: 'ada', tokens: 3 }] } },
      ]);
      const redacted = (ops: readonly OpRecord[]): Record<string, boolean> => Object.fromEntries(ops.map((op) => [op.toolCallId, op.inputRedacted]));
      const expected = { keyed: true, token: true, plain: false };

      expect(redacted(await store.recordModelTurn(lease, record))).toEqual(expected);
      expect(redacted(await store.listOps(lease.turnId))).toEqual(expected);
      await suspendAndClaim(store, lease);
      expect(redacted((await resumableOf(store, lease.turnId)).ops)).toEqual(expected);
    });

    const BAD_BATCHES = [
      { name: 'an empty call id', calls: [{ id: 'call-ok' }, { id: '' }], reason: 'empty_id' },
      { name: 'a duplicate call id', calls: [{ id: 'call-dup' }, { id: 'call-ok' }, { id: 'call-dup' }], reason: 'duplicate_id' },
    ] as const;

    for (const bad of BAD_BATCHES) {
      it(`refuses a batch with ${bad.name} with LedgerIntentError and records nothing of it`, async () => {
        const { store, clock } = harness();
        const { lease } = await admitNew(store);
        await store.checkpoint(lease, { append: [userMessage('hello')], state: { step: 0 }, progressed: true });
        await clock.advance(1_000);
        const before = await snapshot(store, lease.turnId);

        await expectIntentError(store.recordModelTurn(lease, modelTurn(1, bad.calls)), bad.reason);

        expect(await snapshot(store, lease.turnId)).toEqual(before);
        expect(lease.revision).toBe(before.turn?.revision);
      });
    }

    it('refuses the same call id at the same step twice, leaves the first op untouched and the owner free to go on', async () => {
      const { store, clock } = harness();
      const { lease } = await admitNew(store);
      await store.recordModelTurn(lease, modelTurn(1, [{ id: 'call-1', input: { query: 'first' } }]));
      await store.moveOp(lease, opKey(lease.turnId, 1, 'call-1'), { to: 'RUNNING' });
      await clock.advance(1_000);
      const before = await snapshot(store, lease.turnId);

      await expectIntentError(store.recordModelTurn(lease, modelTurn(1, [{ id: 'call-1', input: { query: 'second' } }, { id: 'call-2' }])), 'already_recorded');

      expect(await snapshot(store, lease.turnId)).toEqual(before);
      expect(findOp(await store.listOps(lease.turnId), 1, 'call-1')).toMatchObject({ state: 'RUNNING', input: { query: 'first' } });
      await store.moveOp(lease, opKey(lease.turnId, 1, 'call-1'), { to: 'APPLIED', result: 'sunny' });
      await store.recordModelTurn(lease, modelTurn(2, [{ id: 'call-1' }]));
      expect(lease.revision).toBe((await turnOf(store, lease.turnId)).revision);
    });

    it('passes on an error of its own code as it is, not as the store failing (DESIGN §9.3): nothing is written, and the owner goes on', async () => {
      const { store } = harness();
      const { lease } = await admitNew(store);
      const before = await snapshot(store, lease.turnId);
      // A value no JSON can hold: the store's encoding throws before the database is asked anything.
      const unencodable = { query: 10n } as unknown as JsonObject;

      const refused = await store.recordModelTurn(lease, modelTurn(1, [{ id: 'call-1', input: unencodable }])).then(
        () => undefined,
        (error: unknown) => error,
      );

      expect(refused).toBeInstanceOf(TypeError);
      expect(isTurnStateUnavailable(refused)).toBe(false);
      expect(await snapshot(store, lease.turnId)).toEqual(before);
      await store.recordModelTurn(lease, modelTurn(1, [{ id: 'call-1' }]));
      expect((await store.listOps(lease.turnId)).map((op) => op.state)).toEqual(['PREPARED']);
    });

    // A write takes every move there is; a read differs only in what it may do from PREPARED.
    const starts = [...OWNER_REACHABLE_STATES.map((from) => ({ from, effect: 'write' as const })), { from: 'PREPARED' as const, effect: 'read' as const }];
    for (const { from, effect } of starts) {
      for (const to of OP_STATES) {
        const legal = isLegalMove(from, to, effect);
        it(`moveOp of a ${effect} ${from} -> ${to} ${legal ? 'succeeds' : 'is refused with IllegalOpMoveError, op unchanged'}`, async () => {
          const { store, clock } = harness();
          const { lease } = await admitNew(store);
          const key = opKey(lease.turnId, 1, 'call-1');
          const [recorded] = await store.recordModelTurn(lease, modelTurn(1, [{ id: 'call-1', effect }]));
          await driveOp(store, lease, key, from);
          const before = await snapshot(store, lease.turnId);
          expect(findOp(before.ops, 1, 'call-1').state).toBe(from);
          await clock.advance(1_000);
          const move = moveTo(to, `${from} to ${to}`);

          if (!legal) {
            await expectIllegalMove(store.moveOp(lease, key, move));
            expect(await snapshot(store, lease.turnId)).toEqual(before);
            return;
          }
          const moved = await store.moveOp(lease, key, move);
          expect(moved).toMatchObject({ ...key, state: to, idempotencyKey: recorded?.idempotencyKey });
          if ('result' in move) expect(moved.result).toBe(move.result);
          if ('error' in move) expect(moved.error).toBe(move.error);
          expect(findOp(await store.listOps(lease.turnId), 1, 'call-1')).toEqual(moved);
        });
      }
    }

    it('refuses a move of an op that does not exist', async () => {
      const { store } = harness();
      const { lease } = await admitNew(store);
      await store.recordModelTurn(lease, modelTurn(1, [{ id: 'call-1' }]));
      const before = await snapshot(store, lease.turnId);
      await expectIllegalMove(store.moveOp(lease, opKey(lease.turnId, 1, 'call-2'), { to: 'RUNNING' }));
      await expectIllegalMove(store.moveOp(lease, opKey(lease.turnId, 2, 'call-1'), { to: 'RUNNING' }));
      expect(await snapshot(store, lease.turnId)).toEqual(before);
    });

    it('lets only one of two concurrent starts of the same op through, so the tool runs once', async () => {
      const { store } = harness();
      const { lease } = await admitNew(store);
      await store.recordModelTurn(lease, modelTurn(1, [{ id: 'call-1', effect: 'write' }]));
      const key = opKey(lease.turnId, 1, 'call-1');
      const outcomes = await Promise.allSettled([store.moveOp(lease, key, { to: 'RUNNING' }), store.moveOp(lease, key, { to: 'RUNNING' })]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.filter((o) => o.status === 'rejected');
      expect(refused).toHaveLength(1);
      expect(refused.every((o) => isIllegalOpMoveError(o.reason))).toBe(true);
    });
  });
}
