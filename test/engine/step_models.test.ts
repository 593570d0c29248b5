import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { turnDefaults } from '../../src/conversation/turns/admission.js';
import { storeDurability } from '../../src/engine/durability.js';
import { isSimulatedCrash, stopAt } from '../../src/engine/fault_points.js';
import { restoreFromLog } from '../../src/engine/restore_from_log.js';
import { runTurn } from '../../src/engine/run_turn.js';
import type { LLMProvider } from '../../src/llm/provider.js';
import { deriveCatalog } from '../../src/tools/catalog.js';
import { engineHarness, targetToolsConfig } from '../support/engine_harness.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { llmConfig, testProvider } from '../support/fake_llm/provider.js';
import { FakeLLMServer, type FakeStep } from '../support/fake_llm/server.js';
import { runToCompletion } from '../support/recovery_runtime.js';
import { useTempDir } from '../support/temp_dir.js';
import { ToolTarget } from '../support/tool_target.js';
import { openTestStore } from '../support/turn_store.js';

const overloaded: FakeStep = { kind: 'reply', status: 503, body: { error: { type: 'service_unavailable_error', message: 'busy' } } };
const LOOKUP = { id: 'r1', name: 'lookup', args: '{"word":"milk"}' };

describe('which model wrote each step of a turn with a fallback model (DESIGN §5.4)', () => {
  const temp = useTempDir();
  let primaryServer: FakeLLMServer;
  let fallbackServer: FakeLLMServer;
  let target: ToolTarget;
  let fallback: LLMProvider;

  beforeEach(async () => {
    primaryServer = await FakeLLMServer.start();
    fallbackServer = await FakeLLMServer.start();
    target = await ToolTarget.start();
    fallback = testProvider(llmConfig('openai', fallbackServer.baseUrl, { model: 'local-llama' }));
  });
  afterEach(async () => {
    await primaryServer.close();
    await fallbackServer.close();
    await target.close();
  });

  /** The engine on a store in the test's folder, its first model on `primaryServer` (`test-model`), `local-llama` after it. */
  function engine(store = openTestStore(temp.path())) {
    const harness = engineHarness(store.store, store.clock, primaryServer, targetToolsConfig(target.url));
    return { ...store, harness, deps: { ...harness.deps, fallbacks: [fallback] } };
  }

  it('names the first model as the writer of a reply it wrote, not as a fallback', async () => {
    primaryServer.enqueue(chatToolCalls([LOOKUP]), chatText('Milk is a drink.'));
    const { harness, deps, store } = engine();
    const { turn, durability } = await harness.admit('m-1', 'what is milk?');

    const ending = await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, deps));

    expect(ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Milk is a drink.', writtenBy: { model: 'test-model', fallback: false } });
    expect(fallbackServer.requests).toHaveLength(0);
    await store.close();
  });

  it('names the fallback as the writer of the reply it wrote after the first model wrote the tool step', async () => {
    primaryServer.enqueue(chatToolCalls([LOOKUP]), overloaded);
    fallbackServer.enqueue(chatText('Milk is a drink.'));
    const { harness, deps, store } = engine();
    const { turn, durability } = await harness.admit('m-1', 'what is milk?');

    const ending = await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, deps));

    expect(ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Milk is a drink.', writtenBy: { model: 'local-llama', fallback: true } });
    expect(turn.model).toBe('local-llama');
    expect(target.requests.map((request) => request.path)).toEqual(['/lookup/milk']);
    await store.close();
  });

  it('keeps the fallback as the writer of a reply it logged before a crash: the resumed turn takes the reply from the log, asks no model and names it', async () => {
    primaryServer.enqueue(chatToolCalls([LOOKUP]), overloaded);
    fallbackServer.enqueue(chatText('Milk is a drink.'));
    const first = engine();
    const { turn, durability } = await first.harness.admit('m-1', 'what is milk?');
    const crash = await runToCompletion(first.harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, { ...first.deps, faults: stopAt('after_final_reply') })).catch(
      (error: unknown) => error,
    );
    expect(isSimulatedCrash(crash)).toBe(true);
    await first.store.close();

    const second = engine(openTestStore(temp.path(), first.clock));
    await second.store.sweepOnStartup();
    const resumable = await second.store.loadResumable(turn.turnId);
    if (resumable === undefined) throw new Error('the turn was not kept');
    const config = targetToolsConfig(target.url);
    const parts = {
      turnId: turn.turnId,
      identity: turn.identity,
      requester: turn.requester,
      tools: deriveCatalog(config.tools, { memory: undefined }).tools,
      signal: new AbortController().signal,
      logger: pino({ level: 'silent' }),
    };
    const restored = restoreFromLog(resumable, parts, turnDefaults(config, { now: first.clock.now(), names: undefined }));
    const claim = await second.store.claimResume(turn.turnId, resumable.turn.generation);
    if (!claim.won) throw new Error(`the resume was not won: ${claim.reason}`);
    const requestsBefore = primaryServer.requests.length + fallbackServer.requests.length;

    const ending = await runToCompletion(second.harness.recoveryClock, runTurn(restored.turn, { kind: 'resumed', log: restored.log }, storeDurability(second.store, claim.lease), second.deps));

    expect(ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Milk is a drink.', writtenBy: { model: 'local-llama', fallback: true } });
    expect(primaryServer.requests.length + fallbackServer.requests.length).toBe(requestsBefore);
    await second.store.close();
  });
});
