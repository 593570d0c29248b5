import { describe, expect, it } from 'vitest';
import { HoldfastMetrics } from '../../../src/app/metrics/holdfast_metrics.js';
import { meteredTurnStore } from '../../../src/app/metrics/metered_turn_store.js';
import { SystemClock } from '../../../src/core/system_clock.js';
import { isStaleTurnError } from '../../../src/turn_state/errors.js';
import type { EffectClass } from '../../../src/turn_state/ledger_types.js';
import type { TurnStore } from '../../../src/turn_state/turn_store.js';
import type { Lease } from '../../../src/turn_state/turn_types.js';
import { sampleValue, sampleValuesBy } from '../../support/prometheus_text.js';
import { openTestStoreFile } from '../../support/store_file.js';
import { useTempDir } from '../../support/temp_dir.js';
import { admissionFor, admitNew, TEST_TIMINGS } from '../../support/turn_store.js';

/** A real store file, measured into fresh metrics; the write times come from the real monotonic clock. */
function meteredStore(dir: string) {
  const file = openTestStoreFile(dir);
  const metrics = new HoldfastMetrics();
  return { file, metrics, store: meteredTurnStore(file.turns, metrics, new SystemClock()), scrape: () => metrics.registry.metrics() };
}

async function proposeCalls(store: TurnStore, lease: Lease, calls: readonly { id: string; tool: string; effect: EffectClass }[]): Promise<void> {
  await store.recordModelTurn(lease, {
    step: 1,
    assistant: { role: 'assistant', content: calls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.tool, input: {} })) },
    intents: calls.map((c) => ({ toolCallId: c.id, toolName: c.tool, input: {}, effect: c.effect })),
  });
}

describe('the turn store measured for the metrics', () => {
  const temp = useTempDir();

  it('counts each finished turn by how it ended: completed, failed, cancelled, rejected (also a suspended one refused at resume), expired', async () => {
    const { file, store, scrape } = meteredStore(temp.path());
    await store.complete(await admitNew(store, 'm-1'), 'Done.');
    await store.finish(await admitNew(store, 'm-2'), 'TERMINAL_COMPLETED');
    await store.finish(await admitNew(store, 'm-3'), 'TERMINAL_FAILED', 'the model refused the key');
    await store.finish(await admitNew(store, 'm-4'), 'TERMINAL_CANCELLED');
    await store.finish(await admitNew(store, 'm-5'), 'TERMINAL_REJECTED', 'invalid checkpoint');
    const edited = await admitNew(store, 'm-6');
    await store.suspend(edited, 'provider overloaded');
    expect(await store.rejectSuspended(edited.turnId, edited.generation, 'the message was edited')).toBe(true);
    expect(await store.rejectSuspended(edited.turnId, edited.generation, 'again')).toBe(false);
    for (const id of ['m-7', 'm-8']) await store.suspend(await admitNew(store, id), 'provider overloaded');
    await file.clock.advance(TEST_TIMINGS.resumeTtlMs + 1);
    expect((await store.sweepRetention()).expiredTurns).toBe(2);

    const text = await scrape();
    expect(sampleValuesBy(text, 'holdfast_turns_total', 'status', ['completed', 'failed', 'cancelled', 'rejected', 'expired'])).toEqual({
      completed: 2,
      failed: 1,
      cancelled: 1,
      rejected: 2,
      expired: 2,
    });
    await file.close();
  });

  it('shows every ending at zero before any turn ended', async () => {
    const { file, scrape } = meteredStore(temp.path());
    const text = await scrape();
    expect(sampleValuesBy(text, 'holdfast_turns_total', 'status', ['completed', 'failed', 'cancelled', 'rejected', 'expired'])).toEqual({
      completed: 0,
      failed: 0,
      cancelled: 0,
      rejected: 0,
      expired: 0,
    });
    await file.close();
  });

  it('counts each request for approval by what became of it, with how long it waited by the store’s clock, and shows each at zero before the first', async () => {
    const { file, store, scrape } = meteredStore(temp.path());
    expect(sampleValuesBy(await scrape(), 'holdfast_approvals_total', 'verdict', ['approved', 'denied', 'expired'])).toEqual({ approved: 0, denied: 0, expired: 0 });
    const asking = async (messageId: string, timeoutMs: number) => {
      const lease = await admitNew(store, messageId);
      await proposeCalls(store, lease, [{ id: 'w1', tool: 'send_mail', effect: 'write' }]);
      const key = { turnId: lease.turnId, step: 1, toolCallId: 'w1' };
      await store.awaitApproval(lease, [key], timeoutMs);
      return key;
    };
    const approved = await asking('m-1', 3_600_000);
    const denied = await asking('m-2', 3_600_000);
    await asking('m-3', 7_200_000);
    await file.clock.advance(90_000);
    await store.answerApproval({ call: approved, verdict: 'approved', by: 'discord:ada', note: null });
    expect((await store.answerApproval({ call: approved, verdict: 'denied', by: 'discord:bob', note: null })).kind).toBe('refused');
    await file.clock.advance(510_000);
    await store.answerApproval({ call: denied, verdict: 'denied', by: 'console:ada', note: 'not now' });
    expect(await store.expireApprovals()).toEqual([]);
    await file.clock.advance(7_200_000 - 600_000);
    expect((await store.expireApprovals()).map((op) => op.approval?.decision?.by)).toEqual(['timeout']);

    const text = await scrape();
    expect(sampleValuesBy(text, 'holdfast_approvals_total', 'verdict', ['approved', 'denied', 'expired'])).toEqual({ approved: 1, denied: 1, expired: 1 });
    expect(sampleValue(text, 'holdfast_approval_wait_seconds_count')).toBe(3);
    expect(sampleValue(text, 'holdfast_approval_wait_seconds_sum')).toBe(90 + 600 + 7_200);
    expect(sampleValuesBy(text, 'holdfast_approval_wait_seconds_bucket', 'le', ['60', '120', '600', '3600', '7200', '+Inf'])).toEqual({
      '60': 0,
      '120': 1,
      '600': 2,
      '3600': 2,
      '7200': 3,
      '+Inf': 3,
    });
    await file.close();
  });

  it('counts each tool call the ledger settles by tool, effect and the state it moved to, and not its start', async () => {
    const { file, store, scrape } = meteredStore(temp.path());
    const lease = await admitNew(store, 'm-1');
    await proposeCalls(store, lease, [
      { id: 'c1', tool: 'lookup', effect: 'read' },
      { id: 'c2', tool: 'lookup', effect: 'read' },
      { id: 'c3', tool: 'send_mail', effect: 'write' },
      { id: 'c4', tool: 'send_mail', effect: 'write' },
    ]);
    const key = (toolCallId: string) => ({ turnId: lease.turnId, step: 1, toolCallId });
    await store.moveOp(lease, key('c1'), { to: 'RUNNING' });
    await store.moveOp(lease, key('c1'), { to: 'APPLIED', result: 'milk is a drink' });
    await store.moveOp(lease, key('c2'), { to: 'DEFINITELY_FAILED', error: 'over the tool-call budget' });
    await store.moveOp(lease, key('c3'), { to: 'RUNNING' });
    await store.moveOp(lease, key('c3'), { to: 'OUTCOME_UNKNOWN', error: 'the connection dropped' });
    await store.moveOp(lease, key('c3'), { to: 'RECONCILED_APPLIED', result: 'sent' });
    await store.moveOp(lease, key('c4'), { to: 'RUNNING' });

    const text = await scrape();
    expect(sampleValue(text, 'holdfast_tool_calls_total', { tool: 'lookup', effect: 'read', outcome: 'applied' })).toBe(1);
    expect(sampleValue(text, 'holdfast_tool_calls_total', { tool: 'lookup', effect: 'read', outcome: 'definitely_failed' })).toBe(1);
    expect(sampleValue(text, 'holdfast_tool_calls_total', { tool: 'send_mail', effect: 'write', outcome: 'outcome_unknown' })).toBe(1);
    expect(sampleValue(text, 'holdfast_tool_calls_total', { tool: 'send_mail', effect: 'write', outcome: 'reconciled_applied' })).toBe(1);
    expect(text).not.toMatch(/holdfast_tool_calls_total\{[^}]*outcome="running"/);
    await file.close();
  });

  it('times every durable write, a refused one too, and no read', async () => {
    const { file, store, scrape } = meteredStore(temp.path());
    const lease = await admitNew(store, 'm-1');
    await store.heartbeat(lease);
    await store.checkpoint(lease, { append: [], state: { step: 1 }, progressed: true });
    const stale = { ...lease, token: 'someone-else' };
    expect(isStaleTurnError(await store.suspend(stale, 'overloaded').catch((error: unknown) => error))).toBe(true);
    await store.setRecoveryDeadline(lease, Date.UTC(2030, 0, 1));
    await store.dropInbound(await store.acceptInbound({ identity: { source: 'console', channelId: 'c1', messageId: 'q-1' }, message: { text: 'queued' } }));
    await store.markResolutionTold(lease.turnId);
    await store.sweepExpiredLeases();
    await store.getTurn(lease.turnId);
    await store.listOps(lease.turnId);
    await store.loadResumable(lease.turnId);
    await store.listPendingReplies();

    const text = await scrape();
    expect(sampleValue(text, 'holdfast_store_write_seconds_count')).toBe(9);
    expect(sampleValue(text, 'holdfast_store_write_seconds_sum')).toBeGreaterThan(0);
    expect(sampleValue(text, 'holdfast_turns_total', { status: 'completed' })).toBe(0);
    await file.close();
  });

  it('counts the tokens and cost a turn’s own write carries once it is kept, and a message a limit refused at admission', async () => {
    const { file, store, scrape } = meteredStore(temp.path());
    const lease = await admitNew(store, 'm-1');
    const identity = { source: 'console', channelId: 'channel-1', messageId: 'm-1' };
    const usage = { identity, requesterId: 'user-1', calls: [{ model: 'gpt-test', inputTokens: 1000, outputTokens: 50, cost: 0.25 }] };
    const stale = { ...lease, token: 'someone-else' };
    expect(isStaleTurnError(await store.checkpoint(stale, { append: [], state: {}, progressed: true }, { usage }).catch((error: unknown) => error))).toBe(true);
    await store.checkpoint(lease, { append: [], state: { step: 1 }, progressed: true }, { usage });
    const limits = [{ scope: 'user' as const, kind: 'turns_per_hour' as const, max: 1 }];
    const owner = { source: 'console', userId: 'ada', channelId: 'channel-1' };
    const ask = (messageId: string) => ({ ...admissionFor(messageId), usage: { identity: { ...identity, messageId }, owner, limits } });
    expect((await store.admit(ask('m-2'))).disposition).toBe('admitted');
    expect((await store.admit(ask('m-3'))).disposition).toBe('limited');

    const text = await scrape();
    expect(sampleValue(text, 'holdfast_tokens_total', { model: 'gpt-test', kind: 'input' })).toBe(1000);
    expect(sampleValue(text, 'holdfast_cost_total', { model: 'gpt-test' })).toBe(0.25);
    expect(sampleValue(text, 'holdfast_limit_refusals_total', { scope: 'user', limit: 'turns_per_hour' })).toBe(1);
    await file.close();
  });
});
