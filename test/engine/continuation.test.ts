import BetterSqlite3 from 'better-sqlite3';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { turnDefaults } from '../../src/conversation/turns/admission.js';
import { restoreFromLog } from '../../src/engine/restore_from_log.js';
import { storeDurability } from '../../src/engine/durability.js';
import { GUARD_TEXT } from '../../src/engine/guard_messages.js';
import { isSimulatedCrash, stopAt, type FaultInjector, type FaultPoint } from '../../src/engine/fault_points.js';
import { runTurn } from '../../src/engine/run_turn.js';
import { rejectUnresumable, type TurnEnding } from '../../src/engine/terminal_writer.js';
import { isInvalidCheckpointError } from '../../src/engine/turn_codec.js';
import type { Config } from '../../src/app/config_schema.js';
import { ManualClock } from '../support/manual_clock.js';
import type { Message } from '../../src/llm/protocol.js';
import { validateToolPairs } from '../../src/llm/tool_pairs.js';
import { deriveCatalog } from '../../src/tools/catalog.js';
import { callFingerprint } from '../../src/turn_state/call_fingerprint.js';
import { chargeToolYaml, engineHarness, targetToolsConfig, told } from '../support/engine_harness.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer, type FakeStep } from '../support/fake_llm/server.js';
import { runToCompletion } from '../support/recovery_runtime.js';
import { useTempDir } from '../support/temp_dir.js';
import { ToolTarget } from '../support/tool_target.js';
import { openTestStore } from '../support/turn_store.js';

const REPLY = 'Done: your note is saved and milk is looked up.';
const WRITE = { id: 'w1', name: 'save_note', args: '{"text":"buy milk"}' };
const READ = { id: 'r1', name: 'lookup', args: '{"word":"milk"}' };
const script = (): FakeStep[] => [chatToolCalls([WRITE]), chatToolCalls([READ]), chatText(REPLY)];

interface CaseResult {
  readonly ending: TurnEnding;
  /** Requests the write tool's target received. */
  readonly writes: number;
  /** The stored transcript just before the turn finished, when it finished with a reply. */
  readonly storedTranscript: readonly Message[] | undefined;
  /** The state of the newest checkpoint at that moment. */
  readonly storedState: unknown;
}

/** Records every fault point the engine passes, in order. */
function recorder(): FaultInjector & { readonly seen: FaultPoint[] } {
  const seen: FaultPoint[] = [];
  return { seen, reach: (point) => void seen.push(point) };
}

// Real processes and long matrices: generous limits that only catch hangs.
describe('continuing an interrupted turn from its log (DESIGN §7.4)', { timeout: 60_000 }, () => {
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

  /**
   * Runs the turn until `stop` kills it, restarts on the same database file (start-up sweep),
   * drops the newest `drop` checkpoints, claims the resume and continues with a fresh engine.
   */
  async function interruptAndContinue(dir: string, stop: FaultInjector, drop: number | 'all', cfg: Config = config): Promise<CaseResult> {
    const clock = new ManualClock();
    const first = openTestStore(dir, clock);
    const before = engineHarness(first.store, clock, fake, cfg);
    const { turn, durability } = await before.admit('m-1', 'Note "buy milk", then look up milk.');
    const crash = await runToCompletion(before.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, { ...before.deps, faults: stop })).catch((error: unknown) => error);
    if (!isSimulatedCrash(crash)) throw new Error(`the turn was not stopped: ${JSON.stringify(crash)}`);
    await first.store.close();

    const raw = new BetterSqlite3(first.dbPath);
    const seqs = (raw.prepare('SELECT seq FROM checkpoints WHERE turn_id = ? ORDER BY seq DESC').all(turn.turnId) as { seq: number }[]).map((row) => row.seq);
    for (const seq of drop === 'all' ? seqs : seqs.slice(0, drop)) raw.prepare('DELETE FROM checkpoints WHERE turn_id = ? AND seq = ?').run(turn.turnId, seq);
    raw.close();

    // A restart: the sweep suspends the orphaned turn; its state is restored and validated before the lease is taken.
    const second = openTestStore(dir, clock);
    await second.store.sweepOnStartup();
    const resumable = await second.store.loadResumable(turn.turnId);
    if (resumable === undefined) throw new Error('turn vanished');
    const after = engineHarness(second.store, clock, fake, cfg);
    const reconstructed = {
      turnId: turn.turnId,
      identity: turn.identity,
      requester: turn.requester,
      tools: deriveCatalog(cfg.tools, { memory: undefined }).tools,
      signal: new AbortController().signal,
      logger: pino({ level: 'silent' }),
    };
    const restored = restoreFromLog(resumable, reconstructed, turnDefaults(cfg, { now: clock.now(), names: undefined }));
    const claim = await second.store.claimResume(turn.turnId, resumable.turn.generation);
    if (!claim.won) throw new Error(`resume not won: ${claim.reason}`);
    let stored: Promise<{ transcript: Message[]; state: unknown } | undefined> = Promise.resolve(undefined);
    const watch: FaultInjector = {
      reach: (point) => {
        if (point === 'after_final_reply') stored = second.store.loadResumable(turn.turnId).then((r) => ({ transcript: [...(r?.transcript ?? [])], state: r?.checkpoint?.state }));
      },
    };
    const ending = await runToCompletion(
      after.recoveryClock,
      runTurn(restored.turn, { kind: 'resumed', log: restored.log }, storeDurability(second.store, claim.lease), { ...after.deps, faults: watch }),
    );
    const storedAtReply = ending.status === 'TERMINAL_COMPLETED' && resumable.turn.status === 'SUSPENDED' ? await stored : undefined;
    await second.store.close();
    return { ending, writes: target.requests.filter((r) => r.method === 'POST').length, storedTranscript: storedAtReply?.transcript, storedState: storedAtReply?.state };
  }

  it('reaches the uninterrupted reply from every fault point with any suffix of checkpoints deleted, running the write at most once', async () => {
    // The uninterrupted turn, to learn its fault points and its reply.
    const clock = new ManualClock();
    const baseline = openTestStore(temp.path(), clock);
    const harness = engineHarness(baseline.store, clock, fake, config);
    fake.enqueue(...script());
    const seen = recorder();
    const { turn, durability } = await harness.admit('m-0', 'Note "buy milk", then look up milk.');
    const uninterrupted = await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, { ...harness.deps, faults: seen }));
    await baseline.store.close();
    expect(uninterrupted).toEqual({ status: 'TERMINAL_COMPLETED', reply: REPLY });

    let cases = 0;
    const stops = seen.seen.map((point, index) => ({ point, occurrence: seen.seen.slice(0, index + 1).filter((p) => p === point).length }));
    for (const { point, occurrence } of stops) {
      const writeWasRunning = (point === 'after_wi2' || point === 'after_tool') && occurrence === 1;
      for (const drop of [0, 1, 2, 3, 'all'] as const) {
        fake.reset();
        target.requests.length = 0;
        fake.enqueue(...script());
        const dir = `${temp.path()}/${point}-${occurrence}-${drop}`;
        const result = await interruptAndContinue(dir, stopAt(point, occurrence), drop);
        const label = `${point} #${occurrence}, ${drop} checkpoints dropped`;
        cases += 1;
        expect(result.writes, label).toBeLessThanOrEqual(1);
        if (writeWasRunning) {
          expect(result.ending.status, label).toBe('AWAITING_RESOLUTION');
          expect(told(result.ending).message, label).toMatch(/cannot tell whether `save_note` \(call w1\) took effect/);
        } else {
          expect(result.ending, label).toEqual({ status: 'TERMINAL_COMPLETED', reply: REPLY });
          expect(result.writes, label).toBe(1);
          if (result.storedTranscript !== undefined) expect(validateToolPairs(result.storedTranscript), label).toEqual([]);
        }
        // The model is never asked for a step the log already holds.
        expect(fake.requests.length, label).toBeLessThanOrEqual(3);
      }
    }
    expect(cases).toBe(stops.length * 5);
  });

  it('never runs a call the budget refused, when a two-call batch under a one-call budget is stopped after its intents are recorded and continued', async () => {
    const tight = targetToolsConfig(target.url, 'chat:\n  max_tool_calls: 1\n');
    fake.enqueue(
      chatToolCalls([
        { id: 'a', name: 'save_note', args: '{"text":"first"}' },
        { id: 'b', name: 'save_note', args: '{"text":"second"}' },
      ]),
      chatText('Saved the first; the second was over budget.'),
    );
    const result = await interruptAndContinue(temp.path(), stopAt('after_wi1'), 0, tight);
    expect(result.ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Saved the first; the second was over budget.' });
    expect(target.requests.map((r) => r.body)).toEqual(['{"text":"first"}']);
    const refused = (fake.requests[1]?.body as { messages: { role: string; tool_call_id?: string; content: string }[] }).messages.filter((m) => m.role === 'tool');
    expect(refused).toEqual([
      { role: 'tool', tool_call_id: 'a', content: 'ok' },
      { role: 'tool', tool_call_id: 'b', content: "Error: refused: this turn's budget of 1 tool calls is spent" },
    ]);
  });

  it('re-sends an idempotent call that was running at the stop with the same key, and records it reconciled', async () => {
    const withCharge = targetToolsConfig(target.url, chargeToolYaml(target.url));
    fake.enqueue(chatToolCalls([{ id: 'c1', name: 'charge', args: '{"cents":500}' }]), chatText('Charged.'));
    const result = await interruptAndContinue(temp.path(), stopAt('after_tool'), 0, withCharge);
    expect(result.ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Charged.' });
    const keys = target.requests.filter((r) => r.path === '/charges').map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^hf_[0-9a-f]{40}$/);
    expect(keys[1]).toBe(keys[0]);
  });

  describe('a one-shot guard consumed before the stop stays consumed after the resume', () => {
    const sentMessages = (request: number): { role: string; content: unknown }[] => (fake.requests[request]?.body as { messages: { role: string; content: unknown }[] }).messages;

    it('emptyTurnRetried: after one retry of an empty answer, another empty answer fails the resumed turn with empty_model_turn', async () => {
      fake.enqueue(chatText(''), chatText(''), chatText('never asked'));
      const result = await interruptAndContinue(temp.path(), stopAt('after_wi5'), 0);
      expect(result.ending.status).toBe('TERMINAL_FAILED');
      expect(told(result.ending).message).toMatch(/empty answer twice/);
      expect(fake.requests).toHaveLength(2);
      expect(sentMessages(1).filter((m) => m.content === GUARD_TEXT.emptyTurn)).toHaveLength(1);
    });

    it('finalAnswerRequested: the model told to answer without tools before the stop is not told again after it', async () => {
      const capped = targetToolsConfig(target.url, 'chat:\n  max_iterations: 3\n');
      fake.enqueue(chatToolCalls([{ id: 'r1', name: 'lookup', args: '{"word":"one"}' }]), chatToolCalls([{ id: 'r2', name: 'lookup', args: '{"word":"two"}' }]), chatText('Final answer.'));
      const result = await interruptAndContinue(temp.path(), stopAt('after_wi5'), 0, capped);
      expect(result.ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Final answer.' });
      expect(fake.requests).toHaveLength(3);
      expect((fake.requests[2]?.body as { tool_choice?: string }).tool_choice).toBe('none');
      expect(sentMessages(2).filter((m) => m.content === GUARD_TEXT.finalAnswer)).toHaveLength(1);
    });

    it('continuationsUsed: a reply continued up to max_continuations before the stop is not continued again after it', async () => {
      const once = targetToolsConfig(target.url, 'chat:\n  max_continuations: 1\n');
      fake.enqueue(chatText('One, ', { finishReason: 'length' }), chatText('two.', { finishReason: 'length' }), chatText(' never asked.'));
      const result = await interruptAndContinue(temp.path(), stopAt('after_wi5'), 0, once);
      expect(result.ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'One, two.' });
      expect(fake.requests).toHaveLength(2);
    });

    it('repeatedCalls: a call warned about on its third proposal before the stop is refused on its fourth after it, and stays warned', async () => {
      const milk = (id: string) => ({ id, name: 'lookup', args: '{"word":"milk"}' });
      fake.enqueue(chatToolCalls([milk('a')]), chatToolCalls([milk('b')]), chatToolCalls([milk('c')]), chatToolCalls([milk('d')]), chatText('Milk is milk.'));
      const result = await interruptAndContinue(temp.path(), stopAt('after_wi4', 3), 0);
      expect(result.ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Milk is milk.' });
      expect(target.requests.map((r) => r.path)).toEqual(['/lookup/milk', '/lookup/milk', '/lookup/milk']);
      const results = sentMessages(4).filter((m) => m.role === 'tool');
      expect(results.map((m) => m.content)).toEqual([
        'ok',
        'ok',
        expect.stringMatching(/^ok\n\n\[Holdfast: lookup was called with this same input 3 times/) as unknown,
        'Error: refused: lookup was already called 3 times with this same input',
      ]);
      // The checkpoint the resumed turn wrote after the refusal still lists the call as warned.
      const fingerprint = callFingerprint('lookup', { word: 'milk' });
      expect(result.storedState).toMatchObject({ fields: { repeatedCalls: { counts: { [fingerprint]: 4 }, warned: [fingerprint] } } });
    });
  });

  it('rejects a turn whose stored state is invalid before taking its lease, for good', async () => {
    const clock = new ManualClock();
    const { store, dbPath } = openTestStore(temp.path(), clock);
    const harness = engineHarness(store, clock, fake, config);
    fake.enqueue(chatToolCalls([WRITE]));
    const { turn, durability } = await harness.admit('m-1', 'note milk');
    await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, { ...harness.deps, faults: stopAt('after_wi4') })).catch(() => undefined);
    await store.sweepOnStartup();
    const raw = new BetterSqlite3(dbPath);
    raw.prepare(`UPDATE checkpoints SET state = json_set(state, '$.fields.emptyTurnRetried', 0) WHERE turn_id = ?`).run(turn.turnId);
    raw.close();
    const resumable = await store.loadResumable(turn.turnId);
    if (resumable === undefined) throw new Error('turn vanished');
    const reconstructed = { turnId: turn.turnId, identity: turn.identity, requester: turn.requester, tools: turn.tools, signal: new AbortController().signal, logger: turn.logger };
    let invalid: unknown;
    try {
      restoreFromLog(resumable, reconstructed, turnDefaults(config, { now: clock.now(), names: undefined }));
    } catch (error) {
      invalid = error;
    }
    expect(isInvalidCheckpointError(invalid) && invalid.problems).toEqual([expect.stringContaining('emptyTurnRetried') as unknown]);
    expect(await rejectUnresumable(store, resumable.turn, 'invalid checkpoint')).toMatchObject({ status: 'TERMINAL_REJECTED' });
    expect((await store.getTurn(turn.turnId))?.status).toBe('TERMINAL_REJECTED');
    expect((await store.claimResume(turn.turnId, resumable.turn.generation)).won).toBe(false);
    await store.close();
  });
});
