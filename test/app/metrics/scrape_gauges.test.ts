import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HoldfastMetrics } from '../../../src/app/metrics/holdfast_metrics.js';
import { registerScrapeGauges } from '../../../src/app/metrics/scrape_gauges.js';
import type { TurnStore } from '../../../src/turn_state/turn_store.js';
import type { Lease } from '../../../src/turn_state/turn_types.js';
import { ManualClock } from '../../support/manual_clock.js';
import { sampleValue, sampleValuesBy } from '../../support/prometheus_text.js';
import { testRecoveryRuntime } from '../../support/recovery_runtime.js';
import { useTempDir } from '../../support/temp_dir.js';
import { admitNew, openStoreFileAt } from '../../support/turn_store.js';

/** A write call the resume found uncertain: it waits for an operator's verdict. */
async function callAwaitingVerdict(store: TurnStore, lease: Lease, toolCallId: string): Promise<void> {
  await store.recordModelTurn(lease, {
    step: 1,
    assistant: { role: 'assistant', content: [{ type: 'tool_use', id: toolCallId, name: 'send_mail', input: {} }] },
    intents: [{ toolCallId, toolName: 'send_mail', input: {}, effect: 'write' }],
  });
  const key = { turnId: lease.turnId, step: 1, toolCallId };
  await store.moveOp(lease, key, { to: 'RUNNING' });
  await store.moveOp(lease, key, { to: 'OUTCOME_UNKNOWN', error: 'the process died' });
  await store.moveOp(lease, key, { to: 'MANUAL_RESOLUTION_REQUIRED', error: 'uncertain write' });
}

describe('the gauges read at each scrape', () => {
  const temp = useTempDir();

  it('show the store as it is now: live turns by state, waiting for approval too, calls awaiting a verdict, replies not yet delivered', async () => {
    const clock = new ManualClock();
    const opened = openStoreFileAt(join(temp.path(), 'turns.sqlite3'), { clock });
    const { turns: store } = opened;
    const metrics = new HoldfastMetrics();
    registerScrapeGauges(metrics.registry, { census: () => opened.operator.census(), breakers: testRecoveryRuntime(clock).breakers });
    const held = await admitNew(store, 'm-1');
    await callAwaitingVerdict(store, held, 'c1');
    await admitNew(store, 'm-2');
    await store.suspend(await admitNew(store, 'm-3'), 'provider overloaded');
    const asking = await admitNew(store, 'm-6');
    await store.recordModelTurn(asking, {
      step: 1,
      assistant: { role: 'assistant', content: [{ type: 'tool_use', id: 'w1', name: 'send_mail', input: {} }] },
      intents: [{ toolCallId: 'w1', toolName: 'send_mail', input: {}, effect: 'write' }],
    });
    await store.awaitApproval(asking, [{ turnId: asking.turnId, step: 1, toolCallId: 'w1' }], 60_000);
    await store.complete(await admitNew(store, 'm-4'), 'Done.');
    await store.complete(await admitNew(store, 'm-5'), 'Done too.');
    await store.recordReplyDelivery((await store.listPendingReplies())[1]?.turn.turnId ?? '', { kind: 'delivered', partsDelivered: 1 });

    const text = await metrics.registry.metrics();
    expect(sampleValuesBy(text, 'holdfast_turns', 'state', ['active', 'suspended', 'awaiting_resolution', 'awaiting_approval'])).toEqual({
      active: 2,
      suspended: 1,
      awaiting_resolution: 0,
      awaiting_approval: 1,
    });
    expect(sampleValue(text, 'holdfast_calls_awaiting_verdict')).toBe(1);
    expect(sampleValue(text, 'holdfast_replies_pending')).toBe(1);

    await store.suspend(held, 'shutdown');
    const later = await metrics.registry.metrics();
    expect(sampleValuesBy(later, 'holdfast_turns', 'state', ['active', 'suspended'])).toEqual({ active: 1, suspended: 2 });
    await opened.close();
  });

  it('show zero everywhere when turns are not durable', async () => {
    const metrics = new HoldfastMetrics();
    registerScrapeGauges(metrics.registry, { census: undefined, breakers: testRecoveryRuntime(new ManualClock()).breakers });
    const text = await metrics.registry.metrics();
    expect(sampleValuesBy(text, 'holdfast_turns', 'state', ['active', 'suspended', 'awaiting_resolution', 'awaiting_approval'])).toEqual({
      active: 0,
      suspended: 0,
      awaiting_resolution: 0,
      awaiting_approval: 0,
    });
    expect({ callsAwaitingVerdict: sampleValue(text, 'holdfast_calls_awaiting_verdict'), repliesPending: sampleValue(text, 'holdfast_replies_pending') }).toEqual({
      callsAwaitingVerdict: 0,
      repliesPending: 0,
    });
  });

  it('show each model breaker open (1) from the failure that opens it until a probe closes it (0), by provider and model', async () => {
    const clock = new ManualClock();
    const { breakers } = testRecoveryRuntime(clock);
    const metrics = new HoldfastMetrics();
    registerScrapeGauges(metrics.registry, { census: undefined, breakers });
    const open = async (model: string) => sampleValue(await metrics.registry.metrics(), 'holdfast_breaker_open', { provider: 'openai', model });
    breakers.get('openai', 'llama3:8b');
    breakers.get('openai', 'gpt').recordGenerationFailure();
    expect([await open('llama3:8b'), await open('gpt')]).toEqual([0, 1]);

    await clock.advance(breakers.get('openai', 'gpt').snapshot().cooldownMs);
    const probe = breakers.get('openai', 'gpt').admit();
    expect(await open('gpt')).toBe(1);
    breakers.get('openai', 'gpt').recordSuccess(probe.kind === 'probe' ? probe.token : undefined);
    expect(await open('gpt')).toBe(0);
  });
});
