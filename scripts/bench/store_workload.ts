import type { Message } from '../../src/llm/protocol.js';
import type { OpIntent, OpSettlement } from '../../src/turn_state/ledger_types.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import type { Lease } from '../../src/turn_state/turn_types.js';

/** The same work on every backend: latency of each durable point of a step, and one long turn. */
export const SAMPLES = 400;
export const STEPS = 200;
export const CALLS_PER_STEP = 3;

/** Latencies in milliseconds per durable point. */
export type Latencies = Record<string, number[]>;

/** A realistic step: three calls with small inputs and results of about 1.5 kB each. */
function step(n: number): { assistant: Message; intents: OpIntent[]; results: Message[]; resultText: string } {
  const intents = Array.from({ length: CALLS_PER_STEP }, (_, i): OpIntent => ({
    toolCallId: `call_${n}_${i}`,
    toolName: 'web_fetch',
    input: { url: `https://example.org/articles/${n}/${i}`, max_bytes: 4096 },
    effect: 'read',
  }));
  const resultText = JSON.stringify({ status: 200, body: `Article ${n}: ${'lorem ipsum dolor sit amet '.repeat(55)}` });
  return {
    assistant: {
      role: 'assistant',
      content: [{ type: 'text', text: `Step ${n}: fetching three pages.` }, ...intents.map((i) => ({ type: 'tool_use' as const, id: i.toolCallId, name: i.toolName, input: i.input }))],
    },
    intents,
    results: [{ role: 'tool', content: intents.map((i) => ({ type: 'tool_result' as const, toolUseId: i.toolCallId, content: resultText, isError: false })) }],
    resultText,
  };
}

const loopState = (n: number) => ({ iteration: n, toolCallsUsed: n * CALLS_PER_STEP, emptyTurnRetried: false, continuations: 0, warnedRepeat: false, finalNudgeSent: false });

async function time(samples: number[], work: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await work();
  samples.push(performance.now() - started);
}

/** The `q` quantile of `samples`, to three decimals. */
export function quantile(samples: readonly number[], q: number): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(3);
}

/** Drives one store through the workload; message ids are unique per store. */
export class StoreWorkload {
  #admissions = 0;
  #commits = 0;

  constructor(private readonly store: TurnStore) {}

  /** Durable writes the long turn made, per step. */
  commitsPerStep = 0;

  async admit(): Promise<Lease> {
    this.#admissions += 1;
    const admission = await this.store.admit({
      identity: { source: 'bench', channelId: 'c', messageId: `m-${this.#admissions}` },
      requesterId: 'u',
      messageDigest: 'd',
      start: { transcript: [], state: {} },
    });
    if (admission.disposition !== 'admitted') throw new Error(admission.disposition);
    return admission.lease;
  }

  /** {@link SAMPLES} one-step turns, timing each durable point. */
  async latencies(): Promise<Latencies> {
    const results: Latencies = { admission: [], 'WI-1 (3-call batch)': [], 'WI-2 RUNNING': [], 'WI-3 settle': [], 'WI-4 checkpoint': [], 'WI-4 + 3 reads settled': [] };
    for (let i = 0; i < SAMPLES; i++) {
      let lease: Lease | undefined;
      await time(results['admission'] ?? [], async () => (lease = await this.admit()));
      if (lease === undefined) throw new Error('no lease');
      const owned = lease;
      const s = step(1);
      await time(results['WI-1 (3-call batch)'] ?? [], () => this.store.recordModelTurn(owned, { step: 1, assistant: s.assistant, intents: s.intents }));
      const key = { turnId: owned.turnId, step: 1, toolCallId: s.intents[0]?.toolCallId ?? '' };
      await time(results['WI-2 RUNNING'] ?? [], () => this.store.moveOp(owned, key, { to: 'RUNNING' }));
      await time(results['WI-3 settle'] ?? [], () => this.store.moveOp(owned, key, { to: 'APPLIED', result: s.resultText }));
      await time(results['WI-4 checkpoint'] ?? [], () => this.store.checkpoint(owned, { append: s.results, state: loopState(1), progressed: true }));
      const next = step(2);
      await this.store.recordModelTurn(owned, { step: 2, assistant: next.assistant, intents: next.intents });
      await time(results['WI-4 + 3 reads settled'] ?? [], () => this.store.checkpoint(owned, { append: next.results, state: loopState(2), progressed: true, settle: settlements(owned, 2, next) }));
      await this.store.finish(owned, 'TERMINAL_COMPLETED');
    }
    return results;
  }

  /**
   * One {@link STEPS}-step turn of read-only steps, written as the engine writes them (DESIGN
   * §7.3): the deadline, WI-1, then the settlements with the checkpoint. Resolves to its turn id.
   */
  async longTurn(): Promise<string> {
    const lease = await this.admit();
    await this.store.checkpoint(lease, { append: [{ role: 'user', content: [{ type: 'text', text: 'Summarise these 600 articles.' }] }], state: loopState(0), progressed: false });
    const before = this.#commits;
    for (let n = 1; n <= STEPS; n++) {
      const s = step(n);
      await this.#commit(() => this.store.setRecoveryDeadline(lease, Date.now() + 300_000));
      await this.#commit(() => this.store.recordModelTurn(lease, { step: n, assistant: s.assistant, intents: s.intents }));
      await this.#commit(() => this.store.checkpoint(lease, { append: s.results, state: loopState(n), progressed: true, settle: settlements(lease, n, s) }));
    }
    this.commitsPerStep = (this.#commits - before) / STEPS;
    return lease.turnId;
  }

  async #commit(write: () => Promise<unknown>): Promise<void> {
    await write();
    this.#commits += 1;
  }
}

/** Every call of step `n` applied with its result. */
function settlements(lease: Lease, n: number, s: { intents: readonly OpIntent[]; resultText: string }): OpSettlement[] {
  return s.intents.map((intent) => ({ key: { turnId: lease.turnId, step: n, toolCallId: intent.toolCallId }, move: { to: 'APPLIED', result: s.resultText } }));
}

/** What one backend measured: latencies, and the long turn's sizes and bytes written (by each measure the backend has). */
export interface BackendFigures {
  readonly name: string;
  readonly latencies: Latencies;
  readonly turn: {
    readonly commitsPerStep: number;
    readonly transcript: number;
    readonly ledger: number;
    readonly written: readonly { readonly what: string; readonly bytes: number; readonly means: string }[];
  };
}
