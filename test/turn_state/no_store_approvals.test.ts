import { describe, expect, it } from 'vitest';
import { isTurnStateUnavailable } from '../../src/turn_state/errors.js';
import { noTurnStore } from '../../src/turn_state/no_store.js';

describe('the store chosen when none could open, for approvals (DESIGN §9.2)', () => {
  it('keeps no request: parking for one is refused as the store being away, and there is nothing to answer, expire, find or allow', async () => {
    const store = noTurnStore();
    const admitted = await store.admit({ identity: { source: 'console', channelId: 'c1', messageId: 'm-1' }, requesterId: 'ada', messageDigest: 'd', start: { transcript: [], state: {} } });
    if (admitted.disposition !== 'admitted') throw new Error('a store that keeps nothing admits every message');
    const [op] = await store.recordModelTurn(admitted.lease, {
      step: 1,
      assistant: { role: 'assistant', content: [] },
      intents: [{ toolCallId: 'w1', toolName: 'save_note', input: {}, effect: 'write' }],
    });
    if (op === undefined) throw new Error('no op');

    expect(isTurnStateUnavailable(await store.awaitApproval(admitted.lease, [op], 60_000).catch((error: unknown) => error))).toBe(true);
    expect(await store.answerApproval({ call: op, verdict: 'approved', by: 'console:ada', note: null })).toEqual({ kind: 'refused', reason: 'call_not_found', op: undefined });
    expect(await store.findApproval(op.idempotencyKey)).toBeUndefined();
    expect(await store.expireApprovals()).toEqual([]);
    await store.noteApprovalMessage(op, 'message-1');
    expect(await store.approvalRules({ source: 'console', channelId: 'c1' })).toEqual([]);
  });
});
