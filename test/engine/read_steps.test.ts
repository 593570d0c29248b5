import { beforeEach, describe, expect, it } from 'vitest';
import { HoldfastMetrics } from '../../src/app/metrics/holdfast_metrics.js';
import { meteredTurnStore } from '../../src/app/metrics/metered_turn_store.js';
import { storeDurability } from '../../src/engine/durability.js';
import { isSimulatedCrash, stopAt } from '../../src/engine/fault_points.js';
import { runTurn } from '../../src/engine/run_turn.js';
import type { OpState } from '../../src/turn_state/ledger_types.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import { useEngineParts, type EngineHarness } from '../support/engine_harness.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import type { FakeLLMServer } from '../support/fake_llm/server.js';
import { sampleValue } from '../support/prometheus_text.js';
import { runToCompletion } from '../support/recovery_runtime.js';
import type { ToolTarget } from '../support/tool_target.js';

const lookup = (id: string, word: string) => ({ id, name: 'lookup', args: JSON.stringify({ word }) });
const saveNote = (id: string, text: string) => ({ id, name: 'save_note', args: JSON.stringify({ text }) });

/** Durable writes the store was asked for, as `holdfast_store_write_seconds` counts them. */
async function commitsOf(metrics: HoldfastMetrics): Promise<number | undefined> {
  return sampleValue(await metrics.registry.metrics(), 'holdfast_store_write_seconds_count');
}

describe('a step of reads is stored in two commits (DESIGN §7.3)', () => {
  const parts = useEngineParts();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let store: TurnStore;
  let harness: EngineHarness;
  beforeEach(() => {
    ({ fake, target, store } = parts.current);
    harness = parts.current.harness();
  });

  /** Runs one turn whose first step proposes `calls`, through a measured store; the commits it took and the metrics. */
  async function measuredTurn(calls: readonly { id: string; name: string; args: string }[]): Promise<{ commits: number | undefined; metrics: HoldfastMetrics }> {
    fake.enqueue(chatToolCalls(calls), chatText('Done.'));
    const metrics = new HoldfastMetrics();
    const measured = meteredTurnStore(store, metrics, parts.current.clock);
    const { turn, lease } = await harness.admit('m-1', 'look up and note milk and bread');
    const ending = await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, storeDurability(measured, lease), harness.deps));
    expect(ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Done.' });
    return { commits: await commitsOf(metrics), metrics };
  }

  it('runs two reads without a RUNNING mark and settles them with the checkpoint: two commits for the step, not six', async () => {
    const seen: OpState[][] = [];
    target.onRequest = async () => {
      seen.push((await store.listOps(turnId)).map((op) => op.state));
    };
    let turnId = '';
    fake.enqueue(chatToolCalls([lookup('r1', 'milk'), lookup('r2', 'bread')]), chatText('Done.'));
    const metrics = new HoldfastMetrics();
    const measured = meteredTurnStore(store, metrics, parts.current.clock);
    const admitted = await harness.admit('m-1', 'look up milk and bread');
    turnId = admitted.lease.turnId;
    await runToCompletion(harness.recoveryClock, runTurn(admitted.turn, { kind: 'fresh' }, storeDurability(measured, admitted.lease), harness.deps));

    expect(seen).toEqual([
      ['PREPARED', 'PREPARED'],
      ['PREPARED', 'PREPARED'],
    ]);
    expect((await store.listOps(turnId)).map((op) => [op.toolCallId, op.state, op.result])).toEqual([
      ['r1', 'APPLIED', 'ok'],
      ['r2', 'APPLIED', 'ok'],
    ]);
    // Around the step: a deadline for each generation, the final reply logged, the completion (4); the step's own two: intent recorded, and step checkpointed with the settlements.
    expect(await commitsOf(metrics)).toBe(4 + 2);
    expect(sampleValue(await metrics.registry.metrics(), 'holdfast_tool_calls_total', { tool: 'lookup', effect: 'read', outcome: 'applied' })).toBe(2);
  });

  it('keeps every durable point for a step with a write: 2 + 2 per call', async () => {
    const { commits } = await measuredTurn([saveNote('w1', 'milk'), saveNote('w2', 'bread')]);
    expect(commits).toBe(4 + 2 + 2 * 2);
  });

  it('marks a read RUNNING in a step that also writes, only the read skips it', async () => {
    const { commits, metrics } = await measuredTurn([lookup('r1', 'milk'), saveNote('w1', 'milk')]);
    expect(commits).toBe(4 + 2 + 1 + 2);
    const text = await metrics.registry.metrics();
    expect(sampleValue(text, 'holdfast_tool_calls_total', { tool: 'lookup', effect: 'read', outcome: 'applied' })).toBe(1);
    expect(sampleValue(text, 'holdfast_tool_calls_total', { tool: 'save_note', effect: 'write', outcome: 'applied' })).toBe(1);
  });

  it('leaves a read cut short by a crash PREPARED, not uncertain: the sweep reports no interrupted call and the read runs again', async () => {
    fake.enqueue(chatToolCalls([lookup('r1', 'milk')]), chatText('Milk is a drink.'));
    const { turn, lease, durability } = await harness.admit('m-1', 'look up milk');
    const crash = await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, { ...harness.deps, faults: stopAt('after_tool') })).catch((error: unknown) => error);
    expect(isSimulatedCrash(crash)).toBe(true);
    expect(target.requests).toHaveLength(1);

    const swept = await store.sweepOnStartup();

    expect(swept).toMatchObject({ suspendedTurns: 1, unknownOps: 0, uncertainCalls: [] });
    expect((await store.listOps(lease.turnId)).map((op) => op.state)).toEqual(['PREPARED']);
  });
});
