import { beforeEach, describe, expect, it } from 'vitest';
import { runTurn } from '../../src/engine/run_turn.js';
import type { FaultInjector } from '../../src/engine/fault_points.js';
import { type ManualClock } from '../support/manual_clock.js';
import { validateToolPairs } from '../../src/llm/tool_pairs.js';
import { idempotencyKey } from '../../src/turn_state/call_fingerprint.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import { chargeToolYaml, durabilityOff, told, useEngineParts, type EngineHarness } from '../support/engine_harness.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { type FakeLLMServer, type FakeStep } from '../support/fake_llm/server.js';
import { runToCompletion } from '../support/recovery_runtime.js';
import type { ToolTarget } from '../support/tool_target.js';
import { deferred } from '../support/deferred.js';

const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } };
const saveNote = (id: string, text = 'buy milk') => ({ id, name: 'save_note', args: JSON.stringify({ text }) });

describe('the turn engine against a real store, real tools and the fake model', () => {
  const parts = useEngineParts();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let store: TurnStore;
  let clock: ManualClock;
  let harness: EngineHarness;
  beforeEach(() => {
    ({ fake, target, store, clock } = parts.current);
    harness = parts.current.harness();
  });

  it('answers a plain question and completes the turn', async () => {
    fake.enqueue(chatText('Hello there.'));
    const { turn, lease, durability } = await harness.admit('m-1', 'hi');
    const ending = await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, harness.deps));
    expect(ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Hello there.' });
    expect((await store.getTurn(lease.turnId))?.status).toBe('TERMINAL_COMPLETED');
  });

  it('marks the op RUNNING before the tool runs, runs it once, and answers with its result', async () => {
    const seen: string[] = [];
    target.onRequest = async () => {
      seen.push(...(await store.listOps(lease.turnId)).map((op) => op.state));
    };
    fake.enqueue(chatToolCalls([saveNote('c1')]), chatText('Saved your note.'));
    const { turn, lease, durability } = await harness.admit('m-1', 'note: buy milk');
    const ending = await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, harness.deps));
    expect(told(ending).message).toBe('Saved your note.');
    expect(seen).toEqual(['RUNNING']);
    expect(target.requests.map((r) => [r.method, r.path, r.body])).toEqual([['POST', '/notes', '{"text":"buy milk"}']]);
    expect((await store.listOps(lease.turnId)).map((op) => [op.toolCallId, op.state, op.result])).toEqual([['c1', 'APPLIED', 'ok']]);
    const second = fake.requests[1]?.body as { messages: { role: string; content: unknown }[] };
    expect(second.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'ok' });
  });

  it('suspends on capacity exhaustion with the completed calls preserved, and says the work is saved', async () => {
    fake.enqueue(chatToolCalls([saveNote('c1')]), ...Array.from({ length: 12 }, () => overloaded));
    const { turn, lease, durability } = await harness.admit('m-1', 'note: buy milk');
    const ending = await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, harness.deps));
    expect(ending.status).toBe('SUSPENDED');
    expect(told(ending).message).toMatch(/saved: I will continue by myself when the provider recovers, or type `resume`/);
    const resumable = await store.loadResumable(lease.turnId);
    expect(resumable?.turn.status).toBe('SUSPENDED');
    expect(resumable?.ops.map((op) => op.state)).toEqual(['APPLIED']);
    expect(validateToolPairs(resumable?.transcript ?? [])).toEqual([]);
    expect(resumable?.transcript.at(-1)?.role).toBe('tool');
    expect(target.requests).toHaveLength(1);
  });

  it('settles a write whose tool timed out as OUTCOME_UNKNOWN and halts the turn for manual resolution', async () => {
    const never = new Promise<void>(() => undefined);
    target.reply({ hold: never });
    target.onRequest = () => clock.advance(5_000);
    const states: string[] = [];
    fake.enqueue(chatToolCalls([saveNote('c1')]), chatText('never asked'));
    const { turn, lease, durability } = await harness.admit('m-1', 'note: buy milk');
    const faults: FaultInjector = {
      reach: (point) => {
        if (point === 'after_wi3') void store.listOps(lease.turnId).then((ops) => states.push(...ops.map((op) => op.state)));
      },
    };
    const ending = await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, { ...harness.deps, faults }));
    expect(states).toEqual(['OUTCOME_UNKNOWN']);
    expect(ending.status).toBe('AWAITING_RESOLUTION');
    expect(told(ending).message).toMatch(/cannot tell whether `save_note` \(call c1\) took effect/);
    expect(told(ending).message).toContain(`turn ${lease.turnId.slice(0, 8)}`);
    expect((await store.getTurn(lease.turnId))?.status).toBe('AWAITING_RESOLUTION');
    expect((await store.listOps(lease.turnId)).map((op) => op.state)).toEqual(['MANUAL_RESOLUTION_REQUIRED']);
    expect(fake.requests).toHaveLength(1);
  });

  it('never starts the second batch once the store dies after the first, and says its ending could not be recorded', async () => {
    fake.enqueue(chatToolCalls([saveNote('c1', 'first')]), chatToolCalls([saveNote('c2', 'second')]), chatText('done'));
    const { turn, durability } = await harness.admit('m-1', 'two notes');
    const faults: FaultInjector = {
      reach: (point) => {
        if (point === 'after_wi4') void store.close();
      },
    };
    const ending = await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, { ...harness.deps, faults }));
    expect(ending.status).toBe('unrecorded');
    expect(told(ending).message).toMatch(/could not record how this request ended/);
    expect(target.requests.map((r) => r.body)).toEqual(['{"text":"first"}']);
  });

  it('reports a plain error, and promises nothing, when the suspension itself cannot be stored', async () => {
    fake.enqueue(...Array.from({ length: 12 }, () => overloaded));
    const { turn } = await harness.admit('m-1', 'hi');
    const ending = await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durabilityOff(turn.turnId), harness.deps));
    expect(ending).toEqual({ status: 'TERMINAL_FAILED', reason: 'suspension_not_stored' });
    expect(told(ending)).toEqual({ status: 'TERMINAL_FAILED', message: 'The model provider is overloaded and I could not finish this request. Please try again later.' });
  });

  it('bounces a batch with a repeated call id back to the model with matched error results, running nothing', async () => {
    fake.enqueue(chatToolCalls([saveNote('dup', 'a'), saveNote('dup', 'b')]), chatText('Sorry, let me not do that.'));
    const { turn, lease, durability } = await harness.admit('m-1', 'two notes');
    const ending = await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, harness.deps));
    expect(told(ending).message).toBe('Sorry, let me not do that.');
    expect(target.requests).toHaveLength(0);
    expect(await store.listOps(lease.turnId)).toEqual([]);
    const retry = fake.requests[1]?.body as { messages: { role: string; tool_call_id?: string; content: unknown }[] };
    expect(retry.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['dup', 'dup_2']);
  });

  it('stops at once when cancelled during a recovery wait, and the turn ends cancelled', async () => {
    fake.enqueue(overloaded, chatText('too late'));
    const controller = new AbortController();
    const { turn, lease, durability } = await harness.admit('m-1', 'hi', controller);
    const ending = runTurn(turn, { kind: 'fresh' }, durability, harness.deps);
    await harness.recoveryClock.whenSleeping();
    controller.abort();
    expect(told(await ending)).toEqual({ status: 'TERMINAL_CANCELLED', message: 'Stopped.' });
    expect((await store.getTurn(lease.turnId))?.status).toBe('TERMINAL_CANCELLED');
    expect(fake.requests).toHaveLength(1);
  });

  it('suspends with a notice that the provider cannot be reached when every attempt fails to connect', async () => {
    const unreachable = parts.current.harness();
    await fake.close();
    const { turn, durability } = await unreachable.admit('m-1', 'hi');
    const ending = await runToCompletion(unreachable.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, unreachable.deps));
    expect(ending).toEqual({ status: 'SUSPENDED', suspendedFor: 'unreachable' });
    expect(told(ending).message).toMatch(/cannot be reached right now.*saved/);
  });

  it.each([
    [{ kind: 'reply', status: 401, body: { error: { type: 'invalid_api_key', message: 'bad key' } } }, 'provider_auth', /refused the bot’s credentials/],
    [{ kind: 'reply', status: 400, body: { error: { type: 'invalid_request_error', message: 'bad request' } } }, 'provider_request', /rejected the request/],
    [{ kind: 'reply', status: 429, body: { error: { type: 'insufficient_quota', code: 'insufficient_quota', message: 'no credit' } } }, 'provider_quota', /quota or spending limit is used up/],
    [{ kind: 'reply', status: 429, body: { error: { type: 'rate_limit_error', message: 'slow down' } } }, 'provider_rate_limit', /rate-limiting the bot/],
  ] as const)('fails at once, without retrying, and says why when the provider answers %j', async (step, reason, said) => {
    fake.enqueue(step);
    const { turn, lease, durability } = await harness.admit('m-1', 'hi');
    const ending = await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, harness.deps));
    expect(ending).toEqual({ status: 'TERMINAL_FAILED', reason });
    expect(told(ending).message).toMatch(said);
    expect(fake.requests).toHaveLength(1);
    expect(await store.getTurn(lease.turnId)).toMatchObject({ status: 'TERMINAL_FAILED', failureReason: reason });
  });

  it('re-sends an idempotent call whose outcome was uncertain once, with the same key, and records it reconciled', async () => {
    const charging = parts.current.harness(chargeToolYaml(target.url, 5));
    target.reply({ status: 503, body: 'busy' });
    fake.enqueue(chatToolCalls([{ id: 'c1', name: 'charge', args: '{"cents":500}' }]), chatText('Charged.'));
    const { turn, lease, durability } = await charging.admit('m-1', 'charge 5');
    expect(told(await runToCompletion(charging.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, charging.deps))).message).toBe('Charged.');
    const keys = target.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    // Present and the op's own key, so that "the same key" cannot be two missing ones.
    expect(keys[0]).toMatch(/^hf_[0-9a-f]{40}$/);
    expect(keys[0]).toBe(idempotencyKey({ turnId: lease.turnId, step: 1, toolCallId: 'c1' }));
    expect(keys[1]).toBe(keys[0]);
    expect((await store.listOps(lease.turnId)).map((op) => [op.state, op.result, op.idempotencyKey])).toEqual([['RECONCILED_APPLIED', 'ok', keys[0]]]);
  });

  it('halts for manual resolution when the re-sent idempotent call is still uncertain', async () => {
    const charging = parts.current.harness(chargeToolYaml(target.url));
    target.reply({ status: 503, body: 'busy' }, { status: 502, body: 'still busy' });
    fake.enqueue(chatToolCalls([{ id: 'c1', name: 'charge', args: '{"cents":500}' }]), chatText('never asked'));
    const { turn, lease, durability } = await charging.admit('m-1', 'charge 5');
    const ending = await runToCompletion(charging.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, charging.deps));
    expect(ending.status).toBe('AWAITING_RESOLUTION');
    expect(target.requests).toHaveLength(2);
    expect((await store.listOps(lease.turnId)).map((op) => op.state)).toEqual(['MANUAL_RESOLUTION_REQUIRED']);
  });

  it('keeps the lease alive with heartbeats while a tool runs longer than the lease, and completes', async () => {
    const slow = parts.current.harness(`    - name: slow_note
      description: Saves a note slowly.
      method: POST
      url: ${target.url}/slow
      effect: write
      timeout_seconds: 120
      parameters: { type: object, properties: { text: { type: string } }, required: [text] }
`);
    const release = deferred();
    target.reply({ hold: release.promise });
    target.onRequest = async () => {
      for (let i = 0; i < 9; i++) {
        // The heartbeat and the tool's timeout: the last heartbeat is on disk and the next one waits.
        await clock.whenSleeping(2);
        await clock.advance(10_000);
      }
      release.resolve();
    };
    fake.enqueue(chatToolCalls([{ id: 's1', name: 'slow_note', args: '{"text":"a"}' }]), chatText('Saved, slowly.'));
    const { turn, lease, durability } = await slow.admit('m-1', 'note a, slowly');
    const ending = await runToCompletion(slow.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, slow.deps));
    expect(ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Saved, slowly.' });
    expect((await store.listOps(lease.turnId)).map((op) => op.state)).toEqual(['APPLIED']);
  });
});
