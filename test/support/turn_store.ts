import { dirname, join } from 'node:path';
import { pino } from 'pino';
import { SequentialIds } from './sequential_ids.js';
import { ManualClock } from './manual_clock.js';
import type { Message } from '../../src/llm/protocol.js';
import type { Logger } from '../../src/core/logger.js';
import type { IdFactory } from '../../src/core/ids.js';
import { openSqliteStore } from '../../src/turn_state/sqlite/open_store.js';
import type { OpenedStore } from '../../src/turn_state/opened_store.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import type { OperatorStore } from '../../src/turn_state/operator_store.js';
import type { AdmissionRequest, InitialCheckpoint, Lease } from '../../src/turn_state/turn_types.js';
import type { OpMove } from '../../src/turn_state/ledger_types.js';
import { initialCheckpoint } from '../../src/engine/fresh_turn.js';

/** Production retention figures (DESIGN §10) with a 30 s lease. */
export const TEST_TIMINGS = { leaseTtlMs: 30_000, resumeTtlMs: 24 * 3_600_000, payloadRetentionMs: 7 * 86_400_000, ledgerRetentionMs: 90 * 86_400_000, usageRetentionMs: 400 * 86_400_000 };

/** Every port of a real store file at `dbPath`, opened as the bot opens it; the test fails when it fell back to memory. */
export function openStoreFileAt(
  dbPath: string,
  options: { clock: ManualClock; ids?: IdFactory; logger?: Logger; timings?: typeof TEST_TIMINGS; baseDir?: string },
): OpenedStore & { readonly turns: TurnStore; readonly operator: OperatorStore } {
  const opened = openSqliteStore({
    enabled: true,
    dbPath,
    baseDir: options.baseDir ?? dirname(dbPath),
    clock: options.clock,
    ids: options.ids ?? new SequentialIds('t'),
    logger: options.logger ?? pino({ level: 'silent' }),
    ...(options.timings ?? TEST_TIMINGS),
  });
  const { turns, operator } = opened;
  if (turns === undefined || operator === undefined) throw new Error(`the store file ${dbPath} did not open durably`);
  return { ...opened, turns, operator };
}

/** The turn store of a real store file at `dbPath`. */
export function openTurnStoreFile(dbPath: string, options: Parameters<typeof openStoreFileAt>[1]): TurnStore {
  return openStoreFileAt(dbPath, options).turns;
}

/** A real SQLite turn store in `dir`, on a manual clock. */
export function openTestStore(dir: string, clock = new ManualClock()): { store: TurnStore; clock: ManualClock; dbPath: string } {
  const dbPath = join(dir, 'turn_state', 'turns.sqlite3');
  return { store: openTurnStoreFile(dbPath, { clock }), clock, dbPath };
}

/** What a turn admitted for `text` starts from: the user's message alone, and a fresh loop state. */
export function startingWith(text = 'hello'): InitialCheckpoint {
  return initialCheckpoint({ systemPrompt: 'You are a test bot.', budgets: { maxIterations: 10, maxToolCalls: 10, maxContinuations: 1 } }, [userText(text)]);
}

export function admissionFor(messageId: string, channelId = 'channel-1', start: InitialCheckpoint = startingWith()): AdmissionRequest {
  return { identity: { source: 'console', channelId, messageId }, requesterId: 'user-1', messageDigest: `digest-${messageId}`, start };
}

/** Admits a new turn and returns its lease, failing the test if it was not admitted. */
export async function admitNew(store: TurnStore, messageId: string): Promise<Lease> {
  const admission = await store.admit(admissionFor(messageId));
  if (admission.disposition !== 'admitted') throw new Error(`expected admission, got ${admission.disposition}`);
  return admission.lease;
}

export const userText = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

/** `store` with one method answering as `answer` does, as a store in that situation would. */
export function storeWith<K extends keyof TurnStore>(store: TurnStore, method: K, answer: TurnStore[K]): TurnStore {
  return new Proxy(store, {
    get: (target, name) => {
      if (name === method) return answer;
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * `store`, except that each op move for which `failure(move)` gives an error throws that error
 * instead of being written (a value the store cannot encode, or the store failing at that very
 * write); `refused` lists those moves, in order.
 */
export function failingMoves(store: TurnStore, failure: (move: OpMove) => Error | undefined): { readonly store: TurnStore; readonly refused: OpMove[] } {
  const refused: OpMove[] = [];
  const moveOp: TurnStore['moveOp'] = (lease, key, move) => {
    const error = failure(move);
    if (error === undefined) return store.moveOp(lease, key, move);
    refused.push(move);
    return Promise.reject(error);
  };
  return { store: storeWith(store, 'moveOp', moveOp), refused };
}
