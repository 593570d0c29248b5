import { join } from 'node:path';
import { capturedIo } from './captured_io.js';
import { runCli } from '../../src/app/run.js';
import type { IdFactory } from '../../src/core/ids.js';
import type { OpKey } from '../../src/turn_state/ledger_types.js';
import type { Lease } from '../../src/turn_state/turn_types.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import type { ManualClock } from './manual_clock.js';
import { admissionFor, openStoreFileAt } from './turn_store.js';

/** What one run of the program printed and how it exited. */
export interface CliRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `runCli` in `cwd` as the program would run, on `clock`, collecting its output. */
export async function runCliIn(cwd: string, argv: readonly string[], options: { readonly clock?: ManualClock; readonly env?: Record<string, string> } = {}): Promise<CliRun> {
  const run = capturedIo(cwd, { env: options.env ?? {} });
  const status = await runCli(argv, { ...run.io, ...(options.clock === undefined ? {} : { clock: options.clock }) });
  return { status, stdout: run.stdout(), stderr: run.stderr() };
}

/** Turn ids as the bot makes them, each with its own first 8 characters: `00000001-aaaa-4000-8000-000000000000`, … */
export class DistinctIds implements IdFactory {
  #next = 0;

  newId(): string {
    this.#next += 1;
    return `${this.#next.toString(16).padStart(8, '0')}-aaaa-4000-8000-000000000000`;
  }
}

/** The default store file of a bot started in `cwd`. */
export function storePathIn(cwd: string): string {
  return join(cwd, 'data', 'turn_state', 'turns.sqlite3');
}

/** A call a test turn proposes at `step`: a `write` tool unless said otherwise. */
export interface TestCall {
  readonly id: string;
  readonly step?: number;
  readonly tool?: string;
  readonly effect?: 'read' | 'idempotent' | 'write';
  readonly input?: Record<string, string>;
}

/** Admits a turn for `messageId` in `channelId` and records its calls, each left in the state the test needs it. */
export async function turnWithCalls(turns: TurnStore, messageId: string, calls: readonly TestCall[], channelId = 'channel-1'): Promise<Lease> {
  const admission = await turns.admit(admissionFor(messageId, channelId));
  if (admission.disposition !== 'admitted') throw new Error(`expected ${messageId} to be admitted, got ${admission.disposition}`);
  const { lease } = admission;
  const steps = [...new Set(calls.map((call) => call.step ?? 1))].sort((a, b) => a - b);
  for (const step of steps) {
    const inStep = calls.filter((call) => (call.step ?? 1) === step);
    const intents = inStep.map((call) => ({ toolCallId: call.id, toolName: call.tool ?? 'save_note', input: call.input ?? { text: 'buy milk' }, effect: call.effect ?? 'write' }));
    const assistant = { role: 'assistant' as const, content: intents.map((intent) => ({ type: 'tool_use' as const, id: intent.toolCallId, name: intent.toolName, input: intent.input })) };
    await turns.recordModelTurn(lease, { step, assistant, intents });
  }
  return lease;
}

/** A turn parked AWAITING_RESOLUTION with every one of `calls` cut off while it ran (DESIGN §9.1); returns its id. */
export async function parkedTurn(turns: TurnStore, messageId: string, calls: readonly TestCall[], channelId = 'channel-1'): Promise<string> {
  const lease = await turnWithCalls(turns, messageId, calls, channelId);
  const keys: OpKey[] = calls.map((call) => ({ turnId: lease.turnId, step: call.step ?? 1, toolCallId: call.id }));
  for (const key of keys) {
    await turns.moveOp(lease, key, { to: 'RUNNING' });
    await turns.moveOp(lease, key, { to: 'OUTCOME_UNKNOWN', error: 'the process stopped while the call ran' });
  }
  await turns.awaitResolution(lease, keys, 'an uncertain call awaits an operator’s verdict');
  return lease.turnId;
}

/** A turn parked AWAITING_APPROVAL until a person answers each of `calls`, each request waiting `timeoutMs` (DESIGN §9.2); returns its id. */
export async function approvalTurn(turns: TurnStore, messageId: string, calls: readonly TestCall[], timeoutMs = 3_600_000, channelId = 'channel-1'): Promise<string> {
  const lease = await turnWithCalls(turns, messageId, calls, channelId);
  await turns.awaitApproval(
    lease,
    calls.map((call) => ({ turnId: lease.turnId, step: call.step ?? 1, toolCallId: call.id })),
    timeoutMs,
  );
  return lease.turnId;
}

/** A real store file in `cwd`, where a bot started there keeps it, with turn ids of distinct short ids. */
export function storeIn(cwd: string, clock: ManualClock): ReturnType<typeof openStoreFileAt> {
  return openStoreFileAt(storePathIn(cwd), { clock, ids: new DistinctIds() });
}
