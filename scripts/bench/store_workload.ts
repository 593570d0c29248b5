import type { Message } from '../../src/llm/protocol.js';
import type { OpIntent, OpSettlement } from '../../src/turn_state/ledger_types.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import type { Lease, TurnIdentity } from '../../src/turn_state/turn_types.js';
import type { LeaseRiders } from '../../src/turn_state/lease_riders.js';

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

/** Durable writes one {@link StoreWorkload.loadTurn} makes. */
export const LOAD_TURN_WRITES = 11;

/** What the concurrent turns achieved. */
export interface Throughput {
  readonly turns: number;
  readonly writes: number;
  readonly seconds: number;
}

/** Drives one store through the workload; message ids are unique per store. */
export class StoreWorkload {
  #admissions = 0;

  /** A message nobody sent before. */
  #nextIdentity(): TurnIdentity {
    this.#admissions += 1;
    return { source: 'bench', channelId: 'c', messageId: `m-${this.#admissions}` };
  }
  #commits = 0;

  constructor(private readonly store: TurnStore) {}

  /** Durable writes the long turn made, per step. */
  commitsPerStep = 0;

  async admit(identity: TurnIdentity = this.#nextIdentity(), inboxId?: number, riders?: LeaseRiders): Promise<Lease> {
    const admission = await this.store.admit({
      identity,
      requesterId: 'u',
      messageDigest: 'd',
      start: { transcript: [], state: {} },
      ...(inboxId === undefined ? {} : { inboxId }),
      ...(riders === undefined ? {} : { riders }),
    });
    if (admission.disposition !== 'admitted') throw new Error(admission.disposition);
    return admission.lease;
  }

  /**
   * {@link SAMPLES} one-step turns, timing each durable point. `watchLone` wraps each timed lone
   * RUNNING move (WI-2), for a backend that observes what that write cost beyond its time.
   */
  async latencies(watchLone: (move: () => Promise<void>) => Promise<void> = (move) => move()): Promise<Latencies> {
    const results: Latencies = { admission: [], 'WI-1 (3-call batch)': [], 'WI-2 RUNNING': [], 'WI-3 settle': [], 'WI-4 checkpoint': [], 'WI-4 + 3 reads settled': [] };
    for (let i = 0; i < SAMPLES; i++) {
      let lease: Lease | undefined;
      await time(results['admission'] ?? [], async () => (lease = await this.admit()));
      if (lease === undefined) throw new Error('no lease');
      const owned = lease;
      const s = step(1);
      await time(results['WI-1 (3-call batch)'] ?? [], () => this.store.recordModelTurn(owned, { step: 1, assistant: s.assistant, intents: s.intents }));
      const key = { turnId: owned.turnId, step: 1, toolCallId: s.intents[0]?.toolCallId ?? '' };
      await watchLone(() => time(results['WI-2 RUNNING'] ?? [], () => this.store.moveOp(owned, key, { to: 'RUNNING' })));
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
   * §7.3): WI-1, then the settlements with the checkpoint, which stores the next call's deadline.
   * Resolves to its turn id.
   */
  async longTurn(): Promise<string> {
    const lease = await this.admit();
    await this.store.checkpoint(lease, { append: [{ role: 'user', content: [{ type: 'text', text: 'Summarise these 600 articles.' }] }], state: loopState(0), progressed: false }, nextDeadline());
    const before = this.#commits;
    for (let n = 1; n <= STEPS; n++) {
      const s = step(n);
      await this.#commit(() => this.store.recordModelTurn(lease, { step: n, assistant: s.assistant, intents: s.intents }));
      await this.#commit(() => this.store.checkpoint(lease, { append: s.results, state: loopState(n), progressed: true, settle: settlements(lease, n, s) }, nextDeadline()));
    }
    this.commitsPerStep = (this.#commits - before) / STEPS;
    return lease.turnId;
  }

  /**
   * One turn as the load bench's bot writes it, the model answering at once: the message accepted
   * into the inbox; admission (taking it out, with the message joining the history and the first
   * call's deadline); a step
   * with one `read` call (intent recorded, then the read settled with the step's checkpoint); a
   * step with one `write` call (intent recorded, RUNNING, APPLIED, checkpoint); the final reply
   * recorded; the turn completed, the reply joining the history; the reply's delivery recorded.
   * Each intent carries its call's usage and each checkpoint the next call's deadline, as riders.
   * {@link LOAD_TURN_WRITES} writes.
   */
  async loadTurn(): Promise<void> {
    const identity = this.#nextIdentity();
    const inboxId = await this.store.acceptInbound({ identity, message: { text: 'Read the page and save a note.' } });
    const lease = await this.admit(identity, inboxId, { history: { channel: 'bench:c', entry: { role: 'user', text: 'Read the page and save a note.' } }, deadlineAt: Date.now() + 300_000 });
    const usage: LeaseRiders = { usage: { identity, requesterId: 'u', calls: [{ model: 'bench-model', inputTokens: 1200, outputTokens: 40, cost: null }] } };
    const read = oneCall(lease.turnId, 1, 'read');
    await this.store.recordModelTurn(lease, { step: 1, assistant: read.assistant, intents: [read.intent] }, usage);
    await this.store.checkpoint(lease, { append: read.results, state: loopState(1), progressed: true, settle: [{ key: read.key, move: { to: 'APPLIED', result: read.resultText } }] }, nextDeadline());
    const write = oneCall(lease.turnId, 2, 'write');
    await this.store.recordModelTurn(lease, { step: 2, assistant: write.assistant, intents: [write.intent] }, usage);
    await this.store.moveOp(lease, write.key, { to: 'RUNNING' });
    await this.store.moveOp(lease, write.key, { to: 'APPLIED', result: write.resultText });
    await this.store.checkpoint(lease, { append: write.results, state: loopState(2), progressed: true }, nextDeadline());
    await this.store.recordModelTurn(lease, { step: 3, assistant: { role: 'assistant', content: [{ type: 'text', text: 'Done: read one page and saved a note.' }] }, intents: [] }, usage);
    await this.store.complete(lease, 'Done: read one page and saved a note.', undefined, {
      history: { channel: 'bench:c', entry: { role: 'assistant', text: 'Done: read one page and saved a note.' } },
    });
    await this.store.recordReplyDelivery(lease.turnId, { kind: 'delivered', partsDelivered: 1 });
  }

  /** `turns` {@link loadTurn}s, `concurrency` of them at a time. */
  async concurrentTurns(turns: number, concurrency: number): Promise<Throughput> {
    let started = 0;
    const worker = async (): Promise<void> => {
      while (started < turns) {
        started += 1;
        await this.loadTurn();
      }
    };
    const begun = performance.now();
    await Promise.all(Array.from({ length: concurrency }, worker));
    return { turns, writes: turns * LOAD_TURN_WRITES, seconds: (performance.now() - begun) / 1000 };
  }

  async #commit(write: () => Promise<unknown>): Promise<void> {
    await write();
    this.#commits += 1;
  }
}

/** A step of one call of `effect`, as the load bench's model asks for it. */
function oneCall(turnId: string, n: number, effect: OpIntent['effect']) {
  const intent: OpIntent = { toolCallId: `call_${n}`, toolName: effect === 'read' ? 'web_fetch' : 'save_note', input: { n }, effect };
  const resultText = JSON.stringify({ ok: true, body: 'lorem ipsum dolor sit amet '.repeat(20) });
  return {
    intent,
    key: { turnId, step: n, toolCallId: intent.toolCallId },
    assistant: { role: 'assistant', content: [{ type: 'tool_use' as const, id: intent.toolCallId, name: intent.toolName, input: intent.input }] } satisfies Message,
    results: [{ role: 'tool', content: [{ type: 'tool_result' as const, toolUseId: intent.toolCallId, content: resultText, isError: false }] }] satisfies Message[],
    resultText,
  };
}

/** Every call of step `n` applied with its result. */
function settlements(lease: Lease, n: number, s: { intents: readonly OpIntent[]; resultText: string }): OpSettlement[] {
  return s.intents.map((intent) => ({ key: { turnId: lease.turnId, step: n, toolCallId: intent.toolCallId }, move: { to: 'APPLIED', result: s.resultText } }));
}

/** What one backend measured: latencies, and the long turn's sizes and bytes written (by each measure the backend has). */
export interface BackendFigures {
  readonly name: string;
  readonly latencies: Latencies;
  /** The concurrent turns, when `--concurrency` asked for them. */
  readonly throughput: Throughput | undefined;
  /** Bytes a lone RUNNING move (WI-2) adds to the end of the log, p50: what its durable point syncs, where the backend can tell. */
  readonly loneLogBytes?: number;
  readonly turn: {
    readonly commitsPerStep: number;
    readonly transcript: number;
    readonly ledger: number;
    readonly written: readonly { readonly what: string; readonly bytes: number; readonly means: string }[];
  };
}

/** What a checkpoint carries for the model call after it: that call's recovery deadline (DESIGN §7.3). */
function nextDeadline(): LeaseRiders {
  return { deadlineAt: Date.now() + 300_000 };
}
