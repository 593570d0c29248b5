import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { pino } from 'pino';
import { RandomIds } from '../../src/core/ids.js';
import { SystemClock } from '../../src/core/system_clock.js';
import type { Message } from '../../src/llm/protocol.js';
import type { OpIntent } from '../../src/turn_state/ledger_types.js';
import { openSqliteStore } from '../../src/turn_state/sqlite/open_store.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import type { Lease } from '../../src/turn_state/turn_types.js';

/**
 * The turn store's cost on a real file with the production pragmas: latency of each durable
 * point of a step, and the bytes one 200-step turn writes against the size of its transcript.
 */
const SAMPLES = 400;
const STEPS = 200;
const CALLS_PER_STEP = 3;

const dir = mkdtempSync(join(tmpdir(), 'holdfast-bench-'));
const dbPath = join(dir, 'turns.sqlite3');
const opened = openSqliteStore({
  enabled: true,
  dbPath,
  baseDir: dir,
  clock: new SystemClock(),
  ids: new RandomIds(),
  logger: pino({ level: 'silent' }),
  leaseTtlMs: 600_000,
  resumeTtlMs: 86_400_000,
  payloadRetentionMs: 7 * 86_400_000,
  ledgerRetentionMs: 90 * 86_400_000,
});
if (opened.turns === undefined) throw new Error('the store did not open');
const store: TurnStore = opened.turns;

let admissions = 0;
async function admit(): Promise<Lease> {
  admissions += 1;
  const admission = await store.admit({ identity: { source: 'bench', channelId: 'c', messageId: `m-${admissions}` }, requesterId: 'u', messageDigest: 'd', start: { transcript: [], state: {} } });
  if (admission.disposition !== 'admitted') throw new Error(admission.disposition);
  return admission.lease;
}

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
    assistant: { role: 'assistant', content: [{ type: 'text', text: `Step ${n}: fetching three pages.` }, ...intents.map((i) => ({ type: 'tool_use' as const, id: i.toolCallId, name: i.toolName, input: i.input }))] },
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

function quantile(samples: number[], q: number): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(3);
}

/** What the store hands SQLite to write: the bytes of every value bound to a statement that changes rows. */
let rowBytes = 0;
const probe = new BetterSqlite3(':memory:');
const statementPrototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as { run: (this: unknown, ...params: unknown[]) => unknown };
probe.close();
const originalRun = statementPrototype.run;
statementPrototype.run = function countedRun(this: unknown, ...params: unknown[]): unknown {
  rowBytes += params.reduce<number>((sum, value) => sum + valueBytes(value), 0);
  return originalRun.apply(this, params);
};
function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return 8;
  if (typeof value === 'object' && value !== null) return Object.values(value).reduce<number>((sum, v) => sum + valueBytes(v), 0);
  return 0;
}

/** Bytes the process passed to write(2): the WAL frames and the pages copied back into the database. */
function bytesWritten(): number {
  const line = readFileSync('/proc/self/io', 'utf8').split('\n').find((l) => l.startsWith('wchar:'));
  return Number(line?.split(/\s+/)[1] ?? 0);
}

async function latencies(): Promise<Record<string, number[]>> {
  const results: Record<string, number[]> = { admission: [], 'WI-1 (3-call batch)': [], 'WI-2 RUNNING': [], 'WI-3 settle': [], 'WI-4 checkpoint': [] };
  for (let i = 0; i < SAMPLES; i++) {
    let lease: Lease | undefined;
    await time(results['admission'] ?? [], async () => (lease = await admit()));
    if (lease === undefined) throw new Error('no lease');
    const owned = lease;
    const s = step(1);
    await time(results['WI-1 (3-call batch)'] ?? [], () => store.recordModelTurn(owned, { step: 1, assistant: s.assistant, intents: s.intents }));
    const key = { turnId: owned.turnId, step: 1, toolCallId: s.intents[0]?.toolCallId ?? '' };
    await time(results['WI-2 RUNNING'] ?? [], () => store.moveOp(owned, key, { to: 'RUNNING' }));
    await time(results['WI-3 settle'] ?? [], () => store.moveOp(owned, key, { to: 'APPLIED', result: s.resultText }));
    await time(results['WI-4 checkpoint'] ?? [], () => store.checkpoint(owned, { append: s.results, state: loopState(1), progressed: true }));
    await store.finish(owned, 'TERMINAL_COMPLETED');
  }
  return results;
}

async function longTurn(): Promise<{ written: number; rows: number; transcript: number; ledger: number }> {
  const lease = await admit();
  const before = bytesWritten();
  const rowsBefore = rowBytes;
  await store.checkpoint(lease, { append: [{ role: 'user', content: [{ type: 'text', text: 'Summarise these 600 articles.' }] }], state: loopState(0), progressed: false });
  for (let n = 1; n <= STEPS; n++) {
    const s = step(n);
    await store.setRecoveryDeadline(lease, Date.now() + 300_000);
    await store.recordModelTurn(lease, { step: n, assistant: s.assistant, intents: s.intents });
    for (const intent of s.intents) {
      const key = { turnId: lease.turnId, step: n, toolCallId: intent.toolCallId };
      await store.moveOp(lease, key, { to: 'RUNNING' });
      await store.moveOp(lease, key, { to: 'APPLIED', result: s.resultText });
    }
    await store.checkpoint(lease, { append: s.results, state: loopState(n), progressed: true });
  }
  const written = bytesWritten() - before;
  const rows = rowBytes - rowsBefore;
  const reader = new BetterSqlite3(dbPath, { readonly: true });
  const sizes = reader
    .prepare(
      `SELECT (SELECT SUM(length(CAST(message AS BLOB))) FROM transcript WHERE turn_id = @turn) AS transcript,
              (SELECT SUM(length(CAST(input AS BLOB)) + length(CAST(result AS BLOB))) FROM ops WHERE turn_id = @turn) AS ledger`,
    )
    .get({ turn: lease.turnId }) as { transcript: number; ledger: number };
  reader.close();
  return { written, rows, ...sizes };
}

const timings = await latencies();
const turn = await longTurn();
await store.close();
rmSync(dir, { recursive: true, force: true });

console.log(`turn store on a real file (WAL, synchronous=FULL), ${SAMPLES} samples each`);
console.log('operation               p50 ms   p99 ms');
for (const [name, samples] of Object.entries(timings)) console.log(`${name.padEnd(22)} ${quantile(samples, 0.5).padStart(7)}  ${quantile(samples, 0.99).padStart(7)}`);
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;
console.log(`\none ${STEPS}-step turn, ${CALLS_PER_STEP} calls a step`);
console.log(`final transcript        ${kb(turn.transcript).padStart(9)}`);
console.log(`ledger inputs/results   ${kb(turn.ledger).padStart(9)}`);
const ratio = (bytes: number): string => `${(bytes / turn.transcript).toFixed(2)}x the final transcript`;
console.log(`row bytes written       ${kb(turn.rows).padStart(9)}  = ${ratio(turn.rows)}  (every value bound to a write: transcript, ledger, checkpoints, turn row)`);
console.log(`write(2) on DB and WAL  ${kb(turn.written).padStart(9)}  = ${ratio(turn.written)}  (4 KiB pages per transaction, each page written to the WAL and again at WAL checkpoints)`);
