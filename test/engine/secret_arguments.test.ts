import { dirname } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/app/config_schema.js';
import { turnDefaults } from '../../src/conversation/turns/admission.js';
import { storeDurability } from '../../src/engine/durability.js';
import { isSimulatedCrash, stopAt, type FaultPoint } from '../../src/engine/fault_points.js';
import { restoreFromLog } from '../../src/engine/restore_from_log.js';
import { runTurn } from '../../src/engine/run_turn.js';
import type { TurnEnding } from '../../src/engine/terminal_writer.js';
import { deriveCatalog } from '../../src/tools/catalog.js';
import type { OpRecord } from '../../src/turn_state/ledger_types.js';
import { engineHarness, targetToolsConfig, told } from '../support/engine_harness.js';
import { chatText, chatToolCalls } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer } from '../support/fake_llm/server.js';
import { ManualClock } from '../support/manual_clock.js';
import { runToCompletion } from '../support/recovery_runtime.js';
import { useTempDir } from '../support/temp_dir.js';
import { ToolTarget } from '../support/tool_target.js';
import { openTestStore } from '../support/turn_store.js';
import { bytesUnder } from '../support/store_file.js';

const API_KEY = 'opaque-key-value-9f8e7d';
const PASSWORD = 'hunter2-correct-horse';
const KEYED = { text: 'weekly figures', api_key: API_KEY };
const LOGIN = { text: 'as ada', credentials: { user: 'ada', password: PASSWORD } };

/** Tools whose arguments carry secrets under secret-named keys: a write taking a string key or an object, an idempotent call and a read. */
function secretTools(targetUrl: string): string {
  return `    - name: pay
      description: Pays an amount.
      method: POST
      url: ${targetUrl}/payments
      effect: idempotent
      idempotency_header: Idempotency-Key
      timeout_seconds: 5
      parameters: { type: object, properties: { cents: { type: integer }, api_key: { type: string } }, required: [cents, api_key] }
    - name: lookup_private
      description: Looks a word up in a private dictionary.
      url: ${targetUrl}/private
      effect: read
      timeout_seconds: 5
      parameters: { type: object, properties: { word: { type: string }, token: { type: string } }, required: [word, token] }
    - name: send_report
      description: Sends a report to a service.
      method: POST
      url: ${targetUrl}/reports
      effect: write
      timeout_seconds: 5
      parameters:
        type: object
        properties:
          text: { type: string }
          api_key: { type: string }
          credentials: { type: object, properties: { user: { type: string }, password: { type: string } }, required: [user, password] }
        required: [text]
`;
}

describe('a tool runs with the arguments the model gave; only the stored copy is scrubbed (DESIGN §7.6)', () => {
  const temp = useTempDir();
  let fake: FakeLLMServer;
  let target: ToolTarget;
  let config: Config;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
    target = await ToolTarget.start();
    config = targetToolsConfig(target.url, secretTools(target.url));
  });
  afterEach(async () => {
    await fake.close();
    await target.close();
  });

  /** The tool results the model was sent with its `request`-th call. */
  const toolResults = (request: number): { tool_call_id?: string; content: unknown }[] =>
    (fake.requests[request]?.body as { messages: { role: string; tool_call_id?: string; content: unknown }[] }).messages.filter((m) => m.role === 'tool');

  it('sends the secrets to the endpoint, while the store file holds none of them', async () => {
    const clock = new ManualClock();
    const { store, dbPath } = openTestStore(temp.path(), clock);
    const harness = engineHarness(store, clock, fake, config);
    fake.enqueue(
      chatToolCalls([
        { id: 'k1', name: 'send_report', args: JSON.stringify(KEYED) },
        { id: 'l1', name: 'send_report', args: JSON.stringify(LOGIN) },
      ]),
      chatText('Both reports are sent.'),
    );
    const { turn, lease, durability } = await harness.admit('m-1', 'send the weekly figures, then log in as ada');
    const ending = await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, harness.deps));

    expect(ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Both reports are sent.' });
    expect(target.requests.map((r) => JSON.parse(r.body) as unknown)).toEqual([KEYED, LOGIN]);
    expect(toolResults(1).map((m) => m.content)).toEqual(['ok', 'ok']);
    const stored = await store.listOps(lease.turnId);
    expect(stored.map((op) => [op.state, op.input])).toEqual([
      ['APPLIED', { ...KEYED, api_key: '[REDACTED]' }],
      ['APPLIED', { ...LOGIN, credentials: '[REDACTED]' }],
    ]);
    const bytes = bytesUnder(dirname(dbPath));
    expect(bytes.includes(API_KEY)).toBe(false);
    expect(bytes.includes(PASSWORD)).toBe(false);
    expect(bytes.includes('weekly figures')).toBe(true);
    await store.close();
  });

  /** Runs a turn until it is killed at `point`, restarts on the same file and resumes it; returns the ending and the ledger. */
  async function killAndResume(point: FaultPoint): Promise<{ ending: TurnEnding; ops: OpRecord[] }> {
    const clock = new ManualClock();
    const first = openTestStore(temp.path(), clock);
    const before = engineHarness(first.store, clock, fake, config);
    const { turn, durability } = await before.admit('m-1', 'send the weekly figures and note milk');
    const crash = await runToCompletion(before.recoveryClock, runTurn(turn, { kind: 'fresh' }, durability, { ...before.deps, faults: stopAt(point) })).catch((error: unknown) => error);
    if (!isSimulatedCrash(crash)) throw new Error(`the turn was not stopped: ${JSON.stringify(crash)}`);
    await first.store.close();

    const second = openTestStore(temp.path(), clock);
    await second.store.sweepOnStartup();
    const resumable = await second.store.loadResumable(turn.turnId);
    if (resumable === undefined) throw new Error('turn vanished');
    const after = engineHarness(second.store, clock, fake, config);
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
    if (!claim.won) throw new Error(`resume not won: ${claim.reason}`);
    const ending = await runToCompletion(after.recoveryClock, runTurn(restored.turn, { kind: 'resumed', log: restored.log }, storeDurability(second.store, claim.lease), after.deps));
    const ops = await second.store.listOps(turn.turnId);
    await second.store.close();
    return { ending, ops };
  }

  it('answers a call that never started before a restart, and whose stored arguments were scrubbed, with an error instead of running it', async () => {
    fake.enqueue(
      chatToolCalls([
        { id: 'k1', name: 'send_report', args: JSON.stringify(KEYED) },
        { id: 'n1', name: 'save_note', args: '{"text":"buy milk"}' },
      ]),
      chatText('The note is saved; I will send the report again.'),
    );
    const { ending, ops } = await killAndResume('after_wi1');

    expect(ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'The note is saved; I will send the report again.' });
    // The call with nothing scrubbed out still runs; the other never reaches its endpoint.
    expect(target.requests.map((r) => [r.path, r.body])).toEqual([['/notes', '{"text":"buy milk"}']]);
    expect(toolResults(1)).toEqual([
      { role: 'tool', tool_call_id: 'k1', content: expect.stringMatching(/^Error: not run: .*arguments held secrets, which are never stored; nothing was sent\. Propose the call again/) as unknown },
      { role: 'tool', tool_call_id: 'n1', content: 'ok' },
    ]);
    expect(ops.map((op) => [op.toolCallId, op.state])).toEqual([
      ['k1', 'DEFINITELY_FAILED'],
      ['n1', 'APPLIED'],
    ]);
  });

  it('does not run again a read that was running at a restart when its stored arguments were scrubbed, and tells the model', async () => {
    fake.enqueue(chatToolCalls([{ id: 'r1', name: 'lookup_private', args: JSON.stringify({ word: 'milk', token: API_KEY }) }]), chatText('Ask me again to look it up.'));
    const { ending } = await killAndResume('after_tool');

    expect(ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'Ask me again to look it up.' });
    expect(target.requests.map((r) => r.path)).toEqual([`/private?word=milk&token=${API_KEY}`]);
    expect(toolResults(1)).toEqual([{ role: 'tool', tool_call_id: 'r1', content: expect.stringMatching(/^Error: not run again: .*arguments held secrets/) as unknown }]);
  });

  it('does not re-send an idempotent call whose outcome a restart left unknown when its stored arguments were scrubbed: a person decides', async () => {
    fake.enqueue(chatToolCalls([{ id: 'p1', name: 'pay', args: JSON.stringify({ cents: 500, api_key: API_KEY }) }]), chatText('never asked'));
    const { ending, ops } = await killAndResume('after_tool');

    expect(ending.status).toBe('AWAITING_RESOLUTION');
    expect(told(ending).message).toMatch(/cannot tell whether `pay` \(call p1\) took effect/);
    expect(target.requests.map((r) => JSON.parse(r.body) as unknown)).toEqual([{ cents: 500, api_key: API_KEY }]);
    expect(ops.map((op) => op.state)).toEqual(['MANUAL_RESOLUTION_REQUIRED']);
    expect(fake.requests).toHaveLength(1);
  });
});
