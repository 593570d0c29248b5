import { beforeEach, describe, expect, it } from 'vitest';
import { runTurn } from '../../src/engine/run_turn.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import { useEngineParts, type EngineHarness } from '../support/engine_harness.js';
import { sse, type FakeLLMServer } from '../support/fake_llm/server.js';
import { deferred } from '../support/deferred.js';
import type { ToolTarget } from '../support/tool_target.js';

/** An OpenAI-style stream held back after its first chunk until `release` resolves. */
function heldReply(release: Promise<void>, delta: Record<string, unknown>, finishReason: string) {
  return {
    kind: 'stream' as const,
    chunks: [sse({ choices: [{ index: 0, delta: { content: '' } }] }), release, sse({ choices: [{ index: 0, delta, finish_reason: finishReason }] }), 'data: [DONE]\n\n'],
  };
}

describe('a turn whose lease another owner took while the model answered', () => {
  const parts = useEngineParts();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let store: TurnStore;
  let harness: EngineHarness;
  beforeEach(() => {
    ({ fake, target, store } = parts.current);
    harness = parts.current.harness();
  });

  const cases = [
    ['a final reply', { content: 'Hello.' }, 'stop'],
    ['a tool call', { tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'save_note', arguments: '{"text":"milk"}' } }] }, 'tool_calls'],
  ] as const;
  for (const [answer, delta, finishReason] of cases) {
    it(`records nothing of ${answer} and tells nothing: the turn is the new owner's`, async () => {
      const release = deferred();
      fake.enqueue(heldReply(release.promise, delta, finishReason));
      const { turn, lease, durability } = await harness.admit('m-1', 'hello');
      const ending = runTurn(turn, { kind: 'fresh' }, durability, harness.deps);
      await fake.whenRequests(1);
      // Another process's start-up sweep takes every ACTIVE turn, this one included.
      await store.sweepOnStartup();
      release.resolve();
      expect(await ending).toEqual({ status: 'untouched' });
      expect((await store.getTurn(lease.turnId))?.status).toBe('SUSPENDED');
      expect(await store.listOps(lease.turnId)).toEqual([]);
      expect(await store.listPendingReplies()).toEqual([]);
      expect(target.requests).toEqual([]);
    });
  }
});
