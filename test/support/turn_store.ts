import { join } from 'node:path';
import { pino } from 'pino';
import { SequentialIds } from '../../src/core/ids.js';
import { ManualClock } from '../../src/core/manual_clock.js';
import type { Message } from '../../src/llm/protocol.js';
import { openSqliteTurnStore } from '../../src/turn_state/sqlite/sqlite_turn_store.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import type { AdmissionRequest, Lease } from '../../src/turn_state/turn_types.js';

/** Production retention figures (DESIGN §10) with a 30 s lease. */
export const TEST_TIMINGS = { leaseTtlMs: 30_000, resumeTtlMs: 24 * 3_600_000, payloadRetentionMs: 7 * 86_400_000, ledgerRetentionMs: 90 * 86_400_000 };

/** A real SQLite turn store in `dir`, on a manual clock. */
export function openTestStore(dir: string, clock = new ManualClock()): { store: TurnStore; clock: ManualClock; dbPath: string } {
  const dbPath = join(dir, 'turn_state', 'turns.sqlite3');
  const opened = openSqliteTurnStore({ dbPath, clock, ids: new SequentialIds('t'), logger: pino({ level: 'silent' }), ...TEST_TIMINGS });
  if (!opened.available) throw new Error(`store did not open: ${String(opened.error)}`);
  return { store: opened.store, clock, dbPath };
}

export function admissionFor(messageId: string, channelId = 'channel-1'): AdmissionRequest {
  return { identity: { source: 'console', channelId, messageId }, requesterId: 'user-1', messageDigest: `digest-${messageId}` };
}

/** Admits a new turn and returns its lease, failing the test if it was not admitted. */
export async function admitNew(store: TurnStore, messageId: string): Promise<Lease> {
  const admission = await store.admit(admissionFor(messageId));
  if (admission.disposition !== 'admitted') throw new Error(`expected admission, got ${admission.disposition}`);
  return admission.lease;
}

export const userText = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
