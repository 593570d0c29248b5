import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/llm/protocol.js';
import { idempotencyKey } from '../../../src/turn_state/call_fingerprint.js';
import { CHECKPOINTS_KEPT } from '../../../src/turn_state/turn_store.js';
import {
  admissionRequest,
  admitNew,
  byKey,
  driveOp,
  expectIllegalMove,
  expectStale,
  findOp,
  identity,
  modelTurn,
  opKey,
  resumableOf,
  snapshot,
  suspendAndClaim,
  toolResultMessage,
  turnOf,
  userMessage,
} from './fixtures.js';
import { useHarness, type MakeHarness } from './harness.js';

const LOOP_STATE = {
  iteration: 3,
  toolCallsUsed: 7,
  guards: { nudgedOnce: true, truncatedOnce: false },
  systemPrompt: 'You are Holdfast. Ünïcode ✓, "quotes" and\nnewlines.',
  budgets: [
    { name: 'tools', left: 3 },
    { name: 'tokens', left: 12_000 },
  ],
  lastError: null,
};

export function describeCheckpointsAndTranscript(makeHarness: MakeHarness): void {
  describe('checkpoints and transcript', () => {
    const harness = useHarness(makeHarness);

    it("loads a fresh turn with the request it was admitted with: its first checkpoint over the user's message, and no ops", async () => {
      const { store, clock } = harness();
      const request: Message = userMessage('hello');
      const admission = await store.admit({ ...admissionRequest(identity()), start: { transcript: [request], state: { fresh: true } } });
      if (admission.disposition !== 'admitted') throw new Error(admission.disposition);
      expect(await store.loadResumable(admission.turn.turnId)).toEqual({
        turn: admission.turn,
        checkpoint: { seq: 1, transcriptLength: 1, state: { fresh: true }, createdAt: clock.now() },
        transcript: [request],
        ops: [],
      });
    });

    it('returns every message ever appended, in order, with the model turns interleaved in call order', async () => {
      const { store } = harness();
      const { lease } = await admitNew(store);
      const system: Message = { role: 'system', content: [{ type: 'text', text: 'be brief' }] };
      const question = userMessage('weather in oslo and bergen?');
      const first = modelTurn(1, [{ id: 'call-1' }, { id: 'call-2' }]);
      const results = [toolResultMessage('call-1', 'rain'), toolResultMessage('call-2', 'timeout', true)];
      const second = modelTurn(2, [{ id: 'call-3' }]);
      const guard = userMessage('[guard] answer now');
      const expected: Message[] = [];

      await store.checkpoint(lease, { append: [system, question], state: { step: 0 }, progressed: true });
      expected.push(system, question);
      expect((await resumableOf(store, lease.turnId)).checkpoint?.transcriptLength).toBe(expected.length);

      await store.recordModelTurn(lease, first);
      expected.push(first.assistant);
      await store.checkpoint(lease, { append: results, state: { step: 1 }, progressed: true });
      expected.push(...results);
      expect((await resumableOf(store, lease.turnId)).checkpoint).toMatchObject({ transcriptLength: expected.length, state: { step: 1 } });

      await store.recordModelTurn(lease, second);
      expected.push(second.assistant);
      await store.checkpoint(lease, { append: [toolResultMessage('call-3', 'sunny'), guard], state: { step: 2 }, progressed: true });
      expected.push(toolResultMessage('call-3', 'sunny'), guard);

      const loaded = await resumableOf(store, lease.turnId);
      expect(loaded.transcript).toEqual(expected);
      expect(loaded.checkpoint).toMatchObject({ transcriptLength: expected.length, state: { step: 2 } });
      expect(loaded.turn).toEqual(await turnOf(store, lease.turnId));
      expect(byKey(loaded.ops)).toEqual(byKey(await store.listOps(lease.turnId)));
      expect(loaded.ops).toHaveLength(3);
    });

    it('keeps the loop state exactly, stamps the checkpoint with the clock and numbers checkpoints upwards', async () => {
      const { store, clock } = harness();
      const { lease } = await admitNew(store);
      await clock.advance(2_000);
      await store.checkpoint(lease, { append: [userMessage('a'), userMessage('b')], state: LOOP_STATE, progressed: true });
      const first = (await resumableOf(store, lease.turnId)).checkpoint;
      expect(first).toMatchObject({ transcriptLength: 2, createdAt: clock.now() });
      expect(first?.state).toEqual(LOOP_STATE);

      await clock.advance(2_000);
      await store.checkpoint(lease, { append: [], state: { ...LOOP_STATE, iteration: 4 }, progressed: false });
      const second = (await resumableOf(store, lease.turnId)).checkpoint;
      expect(second).toMatchObject({ transcriptLength: 2, createdAt: clock.now(), state: { ...LOOP_STATE, iteration: 4 } });
      expect(second?.seq).toBeGreaterThan(first?.seq ?? Infinity);
    });

    it('moves the progress time only for checkpoints that record progress', async () => {
      const { store, clock } = harness();
      const { turn, lease } = await admitNew(store);
      await clock.advance(10_000);
      await store.checkpoint(lease, { append: [userMessage('guard')], state: { n: 1 }, progressed: false });
      expect((await turnOf(store, turn.turnId)).lastProgressAt).toBe(turn.lastProgressAt);

      await clock.advance(5_000);
      await store.checkpoint(lease, { append: [toolResultMessage('c', 'ok')], state: { n: 2 }, progressed: true });
      const progressedAt = clock.now();
      expect((await turnOf(store, turn.turnId)).lastProgressAt).toBe(progressedAt);

      await clock.advance(5_000);
      await store.checkpoint(lease, { append: [], state: { n: 3 }, progressed: false });
      expect((await turnOf(store, turn.turnId)).lastProgressAt).toBe(progressedAt);
    });

    it(`returns the latest of more than CHECKPOINTS_KEPT (${CHECKPOINTS_KEPT}) checkpoints and the whole transcript`, async () => {
      const { store, clock } = harness();
      const { lease } = await admitNew(store);
      const written: Message[] = [];
      const count = CHECKPOINTS_KEPT + 3;
      for (let n = 1; n <= count; n++) {
        await clock.advance(1_000);
        await store.heartbeat(lease);
        const append = [userMessage(`message ${n}a`), userMessage(`message ${n}b`)];
        written.push(...append);
        await store.checkpoint(lease, { append, state: { n, history: Array.from({ length: n }, (_, i) => i) }, progressed: true });
      }
      const loaded = await resumableOf(store, lease.turnId);
      expect(loaded.checkpoint).toMatchObject({ transcriptLength: 2 * count, createdAt: clock.now() });
      expect(loaded.checkpoint?.state).toEqual({ n: count, history: Array.from({ length: count }, (_, i) => i) });
      expect(loaded.transcript).toEqual(written);
    });

    it('stores every kind of content block verbatim', async () => {
      const { store } = harness();
      const { lease } = await admitNew(store);
      const messages: Message[] = [
        { role: 'system', content: [{ type: 'text', text: 'rules ✓ — "quoted" \\ back\nslash' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is in this picture?' },
            { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: 'iVBORw0KGgo=' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'call-1', name: 'lookup', input: { nested: { list: [1, 2.5, true, null, 'x'] }, empty: {} } },
            { type: 'tool_use', id: 'call-2', name: 'lookup', input: {}, malformedInput: { raw: '{"city": oslo', reason: 'invalid JSON' } },
          ],
        },
        { role: 'tool', content: [{ type: 'tool_result', toolUseId: 'call-1', content: 'a cat', isError: false }] },
        { role: 'tool', content: [{ type: 'tool_result', toolUseId: 'call-2', content: 'bad arguments', isError: true }] },
      ];
      await store.checkpoint(lease, { append: messages, state: {}, progressed: true });
      expect((await resumableOf(store, lease.turnId)).transcript).toEqual(messages);
    });

    it('gives back an image that refers to a blob by an opaque ref as it was appended', async () => {
      const { store } = harness();
      const { lease } = await admitNew(store);
      const picture: Message = { role: 'user', content: [{ type: 'image', mediaType: 'image/jpeg', source: { kind: 'blob', ref: 'blob-ref-1' } }] };
      await store.checkpoint(lease, { append: [userMessage('look'), picture], state: {}, progressed: true });
      expect((await resumableOf(store, lease.turnId)).transcript).toEqual([userMessage('look'), picture]);
    });

    it('settles a read-only step with its checkpoint: the moves, the results and the checkpoint in one write', async () => {
      const { store, clock } = harness();
      const { lease } = await admitNew(store);
      await store.recordModelTurn(lease, modelTurn(1, [{ id: 'found' }, { id: 'missing' }, { id: 'slow' }]));
      await clock.advance(1_000);
      const results = [toolResultMessage('found', 'rain'), toolResultMessage('missing', 'no such city', true), toolResultMessage('slow', 'timed out', true)];

      const settled = await store.checkpoint(lease, {
        append: results,
        state: { step: 1 },
        progressed: true,
        settle: [
          { key: opKey(lease.turnId, 1, 'found'), move: { to: 'APPLIED', result: 'rain' } },
          { key: opKey(lease.turnId, 1, 'missing'), move: { to: 'DEFINITELY_FAILED', error: 'no such city' } },
          { key: opKey(lease.turnId, 1, 'slow'), move: { to: 'OUTCOME_UNKNOWN', error: 'timed out' } },
        ],
      });

      const loaded = await resumableOf(store, lease.turnId);
      expect(byKey(settled)).toEqual(byKey(loaded.ops));
      expect(loaded.ops.map((op) => [op.toolCallId, op.state, op.result ?? op.error, op.updatedAt])).toEqual([
        ['found', 'APPLIED', 'rain', clock.now()],
        ['missing', 'DEFINITELY_FAILED', 'no such city', clock.now()],
        ['slow', 'OUTCOME_UNKNOWN', 'timed out', clock.now()],
      ]);
      expect(loaded.transcript.slice(-3)).toEqual(results);
      expect(loaded.checkpoint).toMatchObject({ transcriptLength: loaded.transcript.length, state: { step: 1 } });
      expect(await store.checkpoint(lease, { append: [], state: { step: 1 }, progressed: false })).toEqual([]);
    });

    it('keeps nothing of a checkpoint whose move is illegal: a write cannot settle without its RUNNING mark', async () => {
      const { store, clock } = harness();
      const { lease } = await admitNew(store);
      await store.recordModelTurn(lease, modelTurn(1, [{ id: 'looked-up' }, { id: 'sent', effect: 'write' }]));
      await clock.advance(1_000);
      const before = await snapshot(store, lease.turnId);

      await expectIllegalMove(
        store.checkpoint(lease, {
          append: [toolResultMessage('looked-up', 'rain'), toolResultMessage('sent', 'sent')],
          state: { step: 1 },
          progressed: true,
          settle: [
            { key: opKey(lease.turnId, 1, 'looked-up'), move: { to: 'APPLIED', result: 'rain' } },
            { key: opKey(lease.turnId, 1, 'sent'), move: { to: 'APPLIED', result: 'sent' } },
          ],
        }),
      );

      expect(await snapshot(store, lease.turnId)).toEqual(before);
    });

    it('settles nothing for a writer that lost its lease', async () => {
      const { store, clock } = harness();
      const { lease } = await admitNew(store);
      await store.recordModelTurn(lease, modelTurn(1, [{ id: 'call-1' }]));
      const current = await suspendAndClaim(store, lease);
      await clock.advance(1_000);
      const before = await snapshot(store, lease.turnId);

      await expectStale(
        store.checkpoint(lease, {
          append: [toolResultMessage('call-1', 'rain')],
          state: { step: 1 },
          progressed: true,
          settle: [{ key: opKey(lease.turnId, 1, 'call-1'), move: { to: 'APPLIED', result: 'rain' } }],
        }),
      );

      expect(await snapshot(store, lease.turnId)).toEqual(before);
      expect(findOp(await store.listOps(current.turnId), 1, 'call-1').state).toBe('PREPARED');
    });

    it('survives a close and reopen with turns, transcript, ledger and checkpoint intact', async () => {
      const h = harness();
      const { lease } = await admitNew(h.store, identity('msg-1'));
      await h.store.checkpoint(lease, { append: [userMessage('question')], state: LOOP_STATE, progressed: true });
      await h.store.recordModelTurn(lease, modelTurn(1, [{ id: 'done' }, { id: 'unsure' }, { id: 'next', effect: 'write' }]));
      await driveOp(h.store, lease, opKey(lease.turnId, 1, 'done'), 'APPLIED');
      await driveOp(h.store, lease, opKey(lease.turnId, 1, 'unsure'), 'OUTCOME_UNKNOWN');
      await h.store.checkpoint(lease, { append: [toolResultMessage('done', 'result: applied')], state: { ...LOOP_STATE, iteration: 4 }, progressed: true });
      const { lease: other } = await admitNew(h.store, identity('msg-2'));
      await h.store.suspend(other, 'provider overloaded');
      const before = [await resumableOf(h.store, lease.turnId), await resumableOf(h.store, other.turnId)];
      const suspended = await h.store.listSuspended({ source: 'discord', channelId: 'chan-1' });

      await h.reopen();

      expect([await resumableOf(h.store, lease.turnId), await resumableOf(h.store, other.turnId)]).toEqual(before);
      expect(await h.storedTurn(identity('msg-1'))).toEqual(before[0]?.turn);
      expect(byKey(await h.store.listOps(lease.turnId))).toEqual(byKey(before[0]?.ops ?? []));
      expect(await h.store.listSuspended({ source: 'discord', channelId: 'chan-1' })).toEqual(suspended);
      expect((await h.store.admit(admissionRequest(identity('msg-1')))).disposition).toBe('in_progress');
      const started = await h.store.moveOp(lease, opKey(lease.turnId, 1, 'next'), { to: 'RUNNING' });
      expect(started.idempotencyKey).toBe(idempotencyKey(opKey(lease.turnId, 1, 'next')));
      expect(started.idempotencyKey).toBe(findOp(before[0]?.ops ?? [], 1, 'next').idempotencyKey);
    });
  });
}
