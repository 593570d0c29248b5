import BetterSqlite3 from 'better-sqlite3';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/app/config_schema.js';
import { turnDefaults } from '../../src/conversation/turns/admission.js';
import { storeDurability } from '../../src/engine/durability.js';
import { isSimulatedCrash, stopAt } from '../../src/engine/fault_points.js';
import { restoreFromLog } from '../../src/engine/restore_from_log.js';
import { runTurn } from '../../src/engine/run_turn.js';
import { deriveCatalog } from '../../src/tools/catalog.js';
import { engineHarness, targetToolsConfig } from '../support/engine_harness.js';
import { responsesText, responsesToolCalls } from '../support/fake_llm/openai_responses.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { ManualClock } from '../support/manual_clock.js';
import { runToCompletion } from '../support/recovery_runtime.js';
import { useTempDir } from '../support/temp_dir.js';
import { ToolTarget } from '../support/tool_target.js';
import { openTestStore } from '../support/turn_store.js';

const QUESTION = 'What is milk? Look it up.';
const REPLY = 'Milk is a drink.';
const REASONING = { encryptedContent: 'gAAAA-encrypted-reasoning-of-step-1', summary: ['The user wants a definition; look the word up.'] };
/** The reasoning item as the Responses API takes it back. */
const REASONING_ITEM = { type: 'reasoning', encrypted_content: REASONING.encryptedContent, summary: [{ type: 'summary_text', text: REASONING.summary[0] }] };

/** The `input` items of a request the fake model received. */
const inputOf = (request: { body: unknown } | undefined): unknown[] => (request?.body as { input: unknown[] }).input;

describe('OpenAI Responses reasoning across tool steps', { timeout: 60_000 }, () => {
  const temp = useTempDir();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let config: Config;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
    target = await ToolTarget.start();
    config = targetToolsConfig(target.url);
  });
  afterEach(async () => {
    await fake.close();
    await target.close();
  });

  /** The model reasons, looks milk up, then answers. */
  function script(): void {
    fake.enqueue(responsesToolCalls([{ callId: 'call_lookup', name: 'lookup', args: '{"word":"milk"}' }], { reasoning: REASONING }), responsesText(REPLY));
  }

  it('asks for the encrypted reasoning and sends it back, before its call, with the tool result', async () => {
    const { store, clock } = openTestStore(temp.path());
    const harness = engineHarness(store, clock, fake, config, 'openai-responses');
    script();
    const { turn, durability } = await harness.admit('m-1', QUESTION);
    expect(await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, harness.deps))).toEqual({ status: 'TERMINAL_COMPLETED', reply: REPLY });
    await store.close();

    expect(fake.requests.map((request) => (request.body as { include?: unknown }).include)).toEqual([['reasoning.encrypted_content'], ['reasoning.encrypted_content']]);
    const input = inputOf(fake.requests[1]);
    expect(input.slice(1)).toEqual([
      REASONING_ITEM,
      { type: 'function_call', call_id: 'call_lookup', name: 'lookup', arguments: '{"word":"milk"}' },
      { type: 'function_call_output', call_id: 'call_lookup', output: expect.any(String) as unknown },
    ]);
  });

  for (const checkpoints of ['kept', 'lost'] as const) {
    it(`sends the reasoning of a step taken before a crash when the turn goes on after the restart (checkpoints ${checkpoints})`, async () => {
      const clock = new ManualClock();
      const first = openTestStore(temp.path(), clock);
      const before = engineHarness(first.store, clock, fake, config, 'openai-responses');
      script();
      const { turn, durability } = await before.admit('m-1', QUESTION);
      const crash = await runToCompletion(before.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, { ...before.deps, faults: stopAt('after_wi4') })).catch((error: unknown) => error);
      expect(isSimulatedCrash(crash)).toBe(true);
      await first.store.close();
      if (checkpoints === 'lost') {
        const raw = new BetterSqlite3(first.dbPath);
        raw.prepare('DELETE FROM checkpoints WHERE turn_id = ?').run(turn.turnId);
        raw.close();
      }

      const second = openTestStore(temp.path(), clock);
      await second.store.sweepOnStartup();
      const resumable = await second.store.loadResumable(turn.turnId);
      if (resumable === undefined) throw new Error('the turn vanished');
      const reconstructed = {
        turnId: turn.turnId,
        identity: turn.identity,
        requester: turn.requester,
        tools: deriveCatalog(config.tools, { memory: undefined }).tools,
        signal: new AbortController().signal,
        logger: pino({ level: 'silent' }),
      };
      const restored = restoreFromLog(resumable, reconstructed, turnDefaults(config, { now: clock.now(), names: undefined }));
      const claim = await second.store.claimResume(turn.turnId, resumable.turn.generation);
      if (!claim.won) throw new Error(`the resume was not won: ${claim.reason}`);
      const after = engineHarness(second.store, clock, fake, config, 'openai-responses');
      const ending = await runToCompletion(after.recoveryClock, runTurn(restored.turn, { kind: 'resumed', log: restored.log }, storeDurability(second.store, claim.lease), after.deps));
      await second.store.close();

      expect(ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: REPLY });
      expect(fake.requests).toHaveLength(2);
      expect(inputOf(fake.requests[1]).slice(1, 3)).toEqual([REASONING_ITEM, { type: 'function_call', call_id: 'call_lookup', name: 'lookup', arguments: '{"word":"milk"}' }]);
    });
  }
});
