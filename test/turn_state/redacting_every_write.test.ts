import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretValues } from '../../src/core/secret_values.js';
import type { HistoryStore } from '../../src/turn_state/history_store.js';
import type { EffectClass, OpKey } from '../../src/turn_state/ledger_types.js';
import type { MemoryStore } from '../../src/turn_state/memory_store.js';
import type { ModelChoiceStore } from '../../src/turn_state/model_choice_store.js';
import type { OperatorStore } from '../../src/turn_state/operator_store.js';
import { redactingHistoryStore, redactingMemoryStore, redactingModelChoiceStore, redactingOperatorStore, redactingTurnStore, redactingUsageStore } from '../../src/turn_state/redacting_stores.js';
import type { UsageStore } from '../../src/turn_state/usage_store.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import type { Lease } from '../../src/turn_state/turn_types.js';
import { bytesUnder, openTestStoreFile, type TestStoreFile } from '../support/store_file.js';
import { useTempDir } from '../support/temp_dir.js';
import { admissionFor, startingWith } from '../support/turn_store.js';

/** A configured secret of no recognisable shape: only its value can give it away. */
const KEY = 'opaque-model-key-4f9a2c71';
const secrets = SecretValues.of([KEY]);
const say = (what: string): string => `${what} mentions ${KEY}`;

/** The six ports wrapped as the bot wraps them, over one store file in the test's folder. */
interface World {
  readonly file: TestStoreFile;
  readonly turns: TurnStore;
  readonly operator: OperatorStore;
  readonly history: HistoryStore;
  readonly memory: MemoryStore;
  readonly models: ModelChoiceStore;
  readonly usage: UsageStore;
  /** Where `backup` writes its copy: inside the folder every scan reads. */
  readonly backupPath: string;
}

/**
 * What the test does with one member of a port: `read` and `lifecycle` methods persist nothing
 * they are given, and a `flag` is no method; a write is called with the secret in every text it takes (or, for one that
 * takes none, on a turn that holds it elsewhere), and the store's bytes are scanned after it.
 */
type Use = 'read' | 'lifecycle' | 'flag' | ((world: World) => Promise<unknown>);

/** A table with an entry for every method of `Port`: a method added to the port fails to compile here until it is classified. */
type EveryMethod<Port> = { readonly [K in keyof Port]-?: Port[K] extends boolean ? 'flag' : Use };

let admitted = 0;

async function newTurn(world: World, text = 'hello'): Promise<Lease> {
  const admission = await world.turns.admit(admissionFor(`m-${++admitted}`, 'c1', startingWith(text)));
  if (admission.disposition !== 'admitted') throw new Error(`expected admission, got ${admission.disposition}`);
  return admission.lease;
}

/** A new turn with one recorded call of `effect`, its input free of secrets. */
async function withCall(world: World, effect: EffectClass = 'write'): Promise<{ lease: Lease; key: OpKey }> {
  const lease = await newTurn(world);
  const call = { type: 'tool_use' as const, id: 'call-1', name: 'send_mail', input: { to: 'ada' } };
  await world.turns.recordModelTurn(lease, { step: 1, assistant: { role: 'assistant', content: [call] }, intents: [{ toolCallId: 'call-1', toolName: 'send_mail', input: call.input, effect }] });
  return { lease, key: { turnId: lease.turnId, step: 1, toolCallId: 'call-1' } };
}

/** A new turn parked for an operator's verdict on its one uncertain write. */
async function parked(world: World): Promise<{ lease: Lease; key: OpKey }> {
  const { lease, key } = await withCall(world);
  await world.turns.moveOp(lease, key, { to: 'RUNNING' });
  await world.turns.moveOp(lease, key, { to: 'OUTCOME_UNKNOWN', error: 'timed out' });
  await world.turns.awaitResolution(lease, [key], 'an uncertain call awaits a verdict');
  return { lease, key };
}

async function suspended(world: World): Promise<Lease> {
  const lease = await newTurn(world);
  await world.turns.suspend(lease, 'provider overloaded');
  return lease;
}

const TURN_STORE: EveryMethod<TurnStore> = {
  durable: 'flag',
  admit: async (world) => {
    await newTurn(world, say('the request'));
    const admission = await world.turns.admit({
      ...admissionFor(`m-${++admitted}`, 'c1'),
      riders: { history: { channel: 'console:c3', entry: { role: 'user', text: say('the message in the history') } } },
    });
    expect(admission.disposition).toBe('admitted');
  },
  acceptInbound: (world) => world.turns.acceptInbound({ identity: { source: 'console', channelId: 'c1', messageId: 'q-1' }, message: { text: say('the queued message') } }),
  listInbox: 'read',
  dropInbound: async (world) => world.turns.dropInbound(await world.turns.acceptInbound({ identity: { source: 'console', channelId: 'c1', messageId: 'q-2' }, message: { text: 'plain' } })),
  getTurn: 'read',
  listSuspended: 'read',
  latestTurnOf: 'read',
  heartbeat: async (world) => world.turns.heartbeat(await newTurn(world, say('a beating turn’s request'))),
  setRecoveryDeadline: async (world) => world.turns.setRecoveryDeadline(await newTurn(world, say('a waiting turn’s request')), world.file.clock.now() + 60_000),
  recordModelTurn: async (world) => {
    const lease = await newTurn(world);
    const call = { type: 'tool_use' as const, id: 'call-1', name: 'lookup', input: { query: say('the input') } };
    await world.turns.recordModelTurn(
      lease,
      {
        step: 1,
        assistant: { role: 'assistant', content: [{ type: 'text', text: say('the model') }, call] },
        intents: [{ toolCallId: 'call-1', toolName: 'lookup', input: call.input, effect: 'read' }],
      },
      { deadlineAt: Date.UTC(2030, 0, 1) },
    );
  },
  moveOp: async (world) => {
    const applied = await withCall(world);
    await world.turns.moveOp(applied.lease, applied.key, { to: 'RUNNING' });
    await world.turns.moveOp(applied.lease, applied.key, { to: 'APPLIED', result: `${say('a large result')} ${'filler '.repeat(4_000)}` });
    const failed = await withCall(world);
    await world.turns.moveOp(failed.lease, failed.key, { to: 'RUNNING' });
    await world.turns.moveOp(failed.lease, failed.key, { to: 'DEFINITELY_FAILED', error: say('the error') });
    const uncertain = await withCall(world);
    await world.turns.moveOp(uncertain.lease, uncertain.key, { to: 'RUNNING' });
    await world.turns.moveOp(uncertain.lease, uncertain.key, { to: 'OUTCOME_UNKNOWN', error: say('the uncertainty') });
  },
  checkpoint: async (world) => {
    const { lease, key } = await withCall(world, 'read');
    await world.turns.checkpoint(lease, {
      append: [{ role: 'tool', content: [{ type: 'tool_result', toolUseId: 'call-1', content: say('the read'), isError: false }] }],
      state: { systemPrompt: say('the prompt') },
      progressed: true,
      settle: [{ key, move: { to: 'APPLIED', result: say('the settled read') } }],
    });
  },
  suspend: async (world) => world.turns.suspend(await newTurn(world), say('the suspension'), { deadlineAt: Date.UTC(2030, 0, 1) }),
  finish: async (world) => world.turns.finish(await newTurn(world), 'TERMINAL_FAILED', say('the failure'), { deadlineAt: Date.UTC(2030, 0, 1) }),
  complete: async (world) => {
    const lease = await newTurn(world);
    const usage = { identity: { source: 'console', channelId: 'c1', messageId: 'u-1' }, requesterId: 'ada', calls: [{ model: say('a model'), inputTokens: 1, outputTokens: 1, cost: null }] };
    await world.turns.checkpoint(lease, { append: [], state: {}, progressed: true }, { usage });
    await world.turns.complete(lease, say('the reply'), undefined, { history: { channel: 'console:c2', entry: { role: 'assistant', text: say('the reply in the history') } } });
  },
  recordReplyDelivery: async (world) => {
    const lease = await newTurn(world);
    await world.turns.complete(lease, 'plain');
    await world.turns.recordReplyDelivery(lease.turnId, { kind: 'abandoned', reason: say('the delivery failure') });
  },
  listPendingReplies: 'read',
  loadResumable: 'read',
  claimResume: async (world) => {
    const lease = await suspended(world);
    await world.turns.claimResume(lease.turnId, lease.generation);
  },
  awaitResolution: async (world) => {
    const { lease, key } = await withCall(world);
    await world.turns.moveOp(lease, key, { to: 'RUNNING' });
    await world.turns.moveOp(lease, key, { to: 'OUTCOME_UNKNOWN', error: 'timed out' });
    await world.turns.awaitResolution(lease, [key], say('the parking'));
  },
  awaitApproval: async (world) => {
    const { lease, key } = await withCall(world);
    await world.turns.awaitApproval(lease, [key], 60_000);
  },
  answerApproval: async (world) => {
    const approved = await withCall(world);
    await world.turns.awaitApproval(approved.lease, [approved.key], 60_000);
    await world.turns.answerApproval({ call: approved.key, verdict: 'approved', by: 'discord:ada', note: null, allowHere: true });
    const denied = await withCall(world);
    await world.turns.awaitApproval(denied.lease, [denied.key], 60_000);
    await world.turns.answerApproval({ call: denied.key, verdict: 'denied', by: 'discord:ada', note: say('the denial') });
  },
  expireApprovals: async (world) => {
    const { lease, key } = await withCall(world);
    await world.turns.awaitApproval(lease, [key], 0);
    await world.turns.expireApprovals();
  },
  findApproval: 'read',
  noteApprovalMessage: async (world) => {
    const { lease, key } = await withCall(world);
    await world.turns.awaitApproval(lease, [key], 60_000);
    await world.turns.noteApprovalMessage(key, 'message-1');
  },
  approvalRules: 'read',
  listResolvedUntold: 'read',
  markResolutionTold: async (world) => {
    const { lease, key } = await parked(world);
    await world.operator.resolveCall({ call: key, verdict: 'not_applied', text: 'checked', by: 'cli:ops' });
    await world.turns.markResolutionTold(lease.turnId);
  },
  rejectSuspended: async (world) => {
    const lease = await suspended(world);
    await world.turns.rejectSuspended(lease.turnId, lease.generation, say('the rejection'));
  },
  listOps: 'read',
  sweepOnStartup: (world) => world.turns.sweepOnStartup(),
  sweepExpiredLeases: (world) => world.turns.sweepExpiredLeases(),
  sweepRetention: (world) => world.turns.sweepRetention(),
  probe: (world) => world.turns.probe(),
  close: 'lifecycle',
};

const OPERATOR_STORE: EveryMethod<OperatorStore> = {
  listTurns: 'read',
  turnsWithPrefix: 'read',
  turnDetail: 'read',
  turnWork: 'read',
  resolveCall: async (world) => {
    const applied = await parked(world);
    await world.operator.resolveCall({ call: applied.key, verdict: 'applied', text: say('the verdict'), by: 'cli:ops' });
    const notApplied = await parked(world);
    await world.operator.resolveCall({ call: notApplied.key, verdict: 'not_applied', text: say('the note'), by: 'cli:ops' });
  },
  answerApproval: async (world) => {
    const { lease, key } = await withCall(world);
    await world.turns.awaitApproval(lease, [key], 60_000);
    await world.operator.answerApproval({ call: key, verdict: 'denied', by: 'cli:ops', note: say('the operator’s denial') });
  },
  census: 'read',
  processes: 'read',
  usage: 'read',
  checkIntegrity: 'read',
  backup: (world) => world.operator.backup(world.backupPath),
};

const HISTORY_STORE: EveryMethod<HistoryStore> = {
  append: (world) =>
    world.history.append('console:c1', {
      role: 'user',
      text: say('the user'),
      messageId: 'h-1',
      authorId: 'ada',
      authorName: say('the author'),
      attachments: [{ kind: 'text', name: 'notes.txt', text: say('the attached file') }],
    }),
  read: 'read',
  revision: 'read',
  compact: async (world) => {
    const { entries } = await world.history.read('console:c1');
    await world.history.compact('console:c1', { throughId: entries[0]?.id ?? 0, count: 1, summaryId: undefined, summary: say('the summary') });
  },
  edit: async (world) => {
    await world.history.append('console:c1', { role: 'user', text: 'plain before the edit', messageId: 'h-2', authorId: 'ada' });
    await world.history.edit('console:c1', 'h-2', say('the edit'));
  },
  remove: async (world) => {
    await world.history.append('console:c1', { role: 'user', text: 'plain, then deleted', messageId: 'h-3', authorId: 'ada' });
    await world.history.remove('console:c1', ['h-3']);
  },
};

const MEMORY_STORE: EveryMethod<MemoryStore> = {
  remember: (world) => world.memory.remember({ scope: 'user', ownerId: 'ada', text: say('the note'), key: 'note-1' }),
  recall: 'read',
};

const MODEL_CHOICE_STORE: EveryMethod<ModelChoiceStore> = {
  chosen: 'read',
  choose: (world) => world.models.choose('console:c1', say('the model'), say('the admin')),
  clear: async (world) => {
    await world.models.choose('console:c2', 'plain-model', 'console:ada');
    await world.models.clear('console:c2');
  },
};

const ADA = { source: 'console', channelId: 'c1', messageId: 'u-1' };

const USAGE_STORE: EveryMethod<UsageStore> = {
  admit: (world) => world.usage.admit({ identity: ADA, owner: { source: 'console', userId: 'ada', channelId: 'c1' }, limits: [{ scope: 'user', kind: 'turns_per_hour', max: 5 }] }),
  record: (world) => world.usage.record(ADA, 'ada', [{ model: say('the model'), inputTokens: 10, outputTokens: 2, cost: null }]),
  turnSpent: 'read',
  report: 'read',
  sweep: (world) => world.usage.sweep({ detailDays: 7, dailyDays: 400 }),
};

/** Every port's table, with the wrapped port whose methods it must name. */
const PORTS = [
  { port: 'TurnStore', uses: TURN_STORE, wrapped: (world: World): object => world.turns },
  { port: 'OperatorStore', uses: OPERATOR_STORE, wrapped: (world: World): object => world.operator },
  { port: 'HistoryStore', uses: HISTORY_STORE, wrapped: (world: World): object => world.history },
  { port: 'MemoryStore', uses: MEMORY_STORE, wrapped: (world: World): object => world.memory },
  { port: 'ModelChoiceStore', uses: MODEL_CHOICE_STORE, wrapped: (world: World): object => world.models },
  { port: 'UsageStore', uses: USAGE_STORE, wrapped: (world: World): object => world.usage },
] as const;

describe('every write of every store port, wrapped with the configured secrets (DESIGN §7.6)', () => {
  const temp = useTempDir();

  it('writes no secret value into the store file, its log, its blobs or a backup, through any method, edits and deletes included', async () => {
    const file = openTestStoreFile(temp.path());
    const world: World = {
      file,
      turns: redactingTurnStore(file.turns, secrets),
      operator: redactingOperatorStore(file.operator, secrets),
      history: redactingHistoryStore(file.history, secrets),
      memory: redactingMemoryStore(file.memory, secrets),
      models: redactingModelChoiceStore(file.models, secrets),
      usage: redactingUsageStore(file.usage, secrets),
      backupPath: join(temp.path(), 'data', 'backup.sqlite3'),
    };
    const written: string[] = [];
    for (const { port, uses, wrapped } of PORTS) {
      // The table names what the wrapper offers, no more and no less.
      expect(Object.keys(wrapped(world)).sort(), port).toEqual(Object.keys(uses).sort());
      for (const [method, use] of Object.entries<Use>(uses)) {
        if (typeof use !== 'function') continue;
        await use(world);
        written.push(`${port}.${method}`);
        expect(bytesUnder(join(temp.path(), 'data')).includes(KEY), `${port}.${method} wrote the secret`).toBe(false);
      }
    }
    expect(written).toContain('HistoryStore.edit');
    expect(written).toContain('HistoryStore.remove');
    expect((await world.history.read('console:c1')).entries.map((entry) => entry.text)).toEqual(['the summary mentions [REDACTED]', 'the edit mentions [REDACTED]']);
    await file.close();
  });
});
