import { beforeEach, describe, expect, it } from 'vitest';
import { GUARD_TEXT } from '../../src/engine/guard_messages.js';
import { runTurn } from '../../src/engine/run_turn.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import { durabilityOff, told, useEngineParts, type EngineHarness } from '../support/engine_harness.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { type FakeLLMServer } from '../support/fake_llm/server.js';
import { deferred } from '../support/deferred.js';
import { runToCompletion } from '../support/recovery_runtime.js';
import type { ToolTarget } from '../support/tool_target.js';

type SentMessage = { role: string; content: unknown; tool_call_id?: string };
const lookup = (id: string, word = 'milk') => ({ id, name: 'lookup', args: JSON.stringify({ word }) });

describe('the loop’s guards and budgets', () => {
  const parts = useEngineParts();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let store: TurnStore;
  beforeEach(() => {
    ({ fake, target, store } = parts.current);
  });

  const harnessWith = (extra = ''): EngineHarness => parts.current.harness(extra);
  const sent = (request: number): SentMessage[] => (fake.requests[request]?.body as { messages: SentMessage[] }).messages;
  let messages = 0;
  async function run(harness: EngineHarness, text = 'hi') {
    messages += 1;
    const { turn, durability } = await harness.admit(`m-${messages}`, text);
    return runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, harness.deps));
  }

  it('retries an empty model turn once with a nudge, then fails rather than send an empty reply', async () => {
    fake.enqueue(chatText(''), chatText('Here you are.'));
    expect(await run(harnessWith())).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Here you are.' });
    expect(sent(1).at(-1)).toEqual({ role: 'user', content: GUARD_TEXT.emptyTurn });
    fake.reset();
    fake.enqueue(chatText(''), chatText(''), chatText('never asked'));
    const ending = await run(harnessWith());
    expect(ending.status).toBe('TERMINAL_FAILED');
    expect(told(ending).message).toMatch(/empty answer twice/);
    expect(fake.requests).toHaveLength(2);
  });

  it('continues a reply cut off by the token limit up to max_continuations times and joins the parts', async () => {
    fake.enqueue(chatText('One, ', { finishReason: 'length' }), chatText('two, ', { finishReason: 'length' }), chatText('three.', { finishReason: 'length' }));
    expect(await run(harnessWith())).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'One, two, three.' });
    expect(sent(1).slice(-2)).toEqual([
      { role: 'assistant', content: 'One, ' },
      { role: 'user', content: GUARD_TEXT.continueCutOff },
    ]);
    expect(fake.requests).toHaveLength(3);
  });

  it('warns once on the third identical call and refuses the fourth without running it', async () => {
    fake.enqueue(chatToolCalls([lookup('a')]), chatToolCalls([lookup('b')]), chatToolCalls([lookup('c')]), chatToolCalls([lookup('d')]), chatText('Milk is milk.'));
    expect(told(await run(harnessWith())).message).toBe('Milk is milk.');
    expect(target.requests).toHaveLength(3);
    const results = sent(4).filter((m) => m.role === 'tool');
    expect(results.map((m) => m.content)).toEqual([
      'ok',
      'ok',
      expect.stringMatching(/^ok\n\n\[Holdfast: lookup was called with this same input 3 times/) as unknown,
      'Error: refused: lookup was already called 3 times with this same input',
    ]);
  });

  it('tells the model once, one step before the iteration cap, to answer without tools', async () => {
    fake.enqueue(chatToolCalls([lookup('a', 'one')]), chatToolCalls([lookup('b', 'two')]), chatText('Final answer.'));
    expect(await run(harnessWith('chat:\n  max_iterations: 3\n'))).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Final answer.' });
    const last = fake.requests[2]?.body as { tool_choice?: string; messages: SentMessage[] };
    expect(last.tool_choice).toBe('none');
    expect(last.messages.at(-1)).toEqual({ role: 'user', content: GUARD_TEXT.finalAnswer });
    expect(fake.requests[1]?.body).not.toHaveProperty('tool_choice');
  });

  it('fails with iteration_limit when the model keeps calling tools through its last step', async () => {
    fake.enqueue(chatToolCalls([lookup('a', 'one')]), chatToolCalls([lookup('b', 'two')]));
    const ending = await run(harnessWith('chat:\n  max_iterations: 2\n'));
    expect(ending.status).toBe('TERMINAL_FAILED');
    expect(told(ending).message).toMatch(/more steps than one turn may take/);
  });

  it('runs a batch of reads concurrently', async () => {
    const both = deferred();
    target.onRequest = () => (target.requests.length === 2 ? both.resolve() : both.promise);
    fake.enqueue(chatToolCalls([lookup('a', 'one'), lookup('b', 'two')]), chatText('Both looked up.'));
    expect(told(await run(harnessWith())).message).toBe('Both looked up.');
    expect(target.requests.map((r) => r.path).sort()).toEqual(['/lookup/one', '/lookup/two']);
  });

  it('lets a write that already started settle when the turn is stopped, runs nothing more, and ends cancelled', async () => {
    const release = deferred();
    const controller = new AbortController();
    target.reply({ hold: release.promise });
    target.onRequest = () => {
      controller.abort();
      release.resolve();
    };
    const harness = harnessWith();
    fake.enqueue(
      chatToolCalls([
        { id: 'w1', name: 'save_note', args: '{"text":"a"}' },
        { id: 'w2', name: 'save_note', args: '{"text":"b"}' },
      ]),
      chatText('never asked'),
    );
    const { turn, lease, durability } = await harness.admit('m-stop', 'two notes', controller);
    expect(told(await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, harness.deps)))).toEqual({ status: 'TERMINAL_CANCELLED', message: 'Stopped.' });
    expect(target.requests).toHaveLength(1);
    expect((await store.listOps(lease.turnId)).map((op) => [op.toolCallId, op.state])).toEqual([
      ['w1', 'APPLIED'],
      ['w2', 'PREPARED'],
    ]);
    expect((await store.getTurn(lease.turnId))?.status).toBe('TERMINAL_CANCELLED');
  });

  it('runs the same loop without a store when durability is off', async () => {
    const harness = harnessWith();
    fake.enqueue(chatToolCalls([{ id: 'w1', name: 'save_note', args: '{"text":"a"}' }]), chatText('Saved.'));
    const { turn } = await harness.admit('m-off', 'note a');
    expect(await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durabilityOff(turn.turnId), harness.deps))).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Saved.' });
    expect(target.requests).toHaveLength(1);
    expect(await store.listOps(turn.turnId)).toEqual([]);
  });
});
