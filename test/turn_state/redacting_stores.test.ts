import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretValues } from '../../src/core/secret_values.js';
import { REDACTED } from '../../src/core/sensitive_keys.js';
import { redactingHistoryStore, redactingMemoryStore, redactingTurnStore } from '../../src/turn_state/redacting_stores.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import type { Lease } from '../../src/turn_state/turn_types.js';
import { bytesUnder, openTestStoreFile } from '../support/store_file.js';
import { useTempDir } from '../support/temp_dir.js';
import { admissionFor, startingWith } from '../support/turn_store.js';

/** Configured secrets of no recognisable shape: only their values can give them away. */
const KEY = 'opaque-model-key-4f9a2c71';
const TOKEN = 'opaque-bot-token-88d0e1';
const secrets = SecretValues.of([KEY, TOKEN]);
const say = (what: string) => `${what} mentions ${KEY} and ${TOKEN}`;

async function admit(store: TurnStore, messageId: string, text?: string): Promise<Lease> {
  const admission = await store.admit(admissionFor(messageId, undefined, startingWith(text)));
  if (admission.disposition !== 'admitted') throw new Error(`expected admission, got ${admission.disposition}`);
  return admission.lease;
}

describe('the stores wrapped with the configured secrets', () => {
  const temp = useTempDir();

  it('write no secret value anywhere in the store file or its blobs, through any port, and read back what they wrote redacted', async () => {
    const file = openTestStoreFile(temp.path());
    const store = redactingTurnStore(file.turns, secrets);
    const history = redactingHistoryStore(file.history, secrets);
    const memory = redactingMemoryStore(file.memory, secrets);

    const lease = await admit(store, 'm-1', say('the request'));
    await store.acceptInbound({ identity: { source: 'console', channelId: 'c1', messageId: 'm-9' }, message: { text: say('the queued message') } });
    const call = { type: 'tool_use' as const, id: 'call-1', name: 'lookup', input: { query: say('input') } };
    await store.recordModelTurn(lease, {
      step: 1,
      assistant: { role: 'assistant', content: [{ type: 'text', text: say('the model') }, call, { ...call, id: 'call-2' }] },
      intents: ['call-1', 'call-2'].map((toolCallId) => ({ toolCallId, toolName: 'lookup', input: call.input, effect: 'read' as const })),
    });
    const first = { turnId: lease.turnId, step: 1, toolCallId: 'call-1' };
    const second = { ...first, toolCallId: 'call-2' };
    const large = `${say('a large result')} ${'filler '.repeat(4_000)}`;
    await store.moveOp(lease, first, { to: 'RUNNING' });
    await store.moveOp(lease, first, { to: 'APPLIED', result: large });
    await store.moveOp(lease, second, { to: 'DEFINITELY_FAILED', error: say('the error') });
    await store.checkpoint(lease, {
      append: [
        {
          role: 'tool',
          content: [
            { type: 'tool_result', toolUseId: 'call-1', content: large, isError: false },
            { type: 'tool_result', toolUseId: 'call-2', content: say('the error'), isError: true },
          ],
        },
      ],
      state: { systemPrompt: say('the prompt') },
      progressed: true,
    });
    await store.suspend(lease, say('the suspension'));
    const suspended = await store.getTurn(lease.turnId);
    const claim = await store.claimResume(lease.turnId, lease.generation);
    if (!claim.won) throw new Error('expected to win the resume');
    await store.complete(claim.lease, say('the reply'));
    const pending = await store.listPendingReplies();
    await store.recordReplyDelivery(lease.turnId, { kind: 'abandoned', reason: say('the delivery failure') });

    const failed = await admit(store, 'm-2');
    await store.finish(failed, 'TERMINAL_FAILED', say('the failure'));
    const rejected = await admit(store, 'm-3');
    await store.suspend(rejected, 'provider overloaded');
    await store.rejectSuspended(rejected.turnId, rejected.generation, say('the rejection'));

    await history.append('console:c1', { role: 'user', text: say('the user') });
    const entries = (await history.read('console:c1')).entries;
    await history.compact('console:c1', { throughId: entries[0]?.id ?? 0, count: 1, summaryId: undefined, summary: say('the summary') });
    await memory.remember({ scope: 'user', ownerId: 'ada', text: say('the note'), key: 'note-1' });

    expect((await store.listInbox('console')).map((entry) => entry.message)).toEqual([{ text: `the queued message mentions ${REDACTED} and ${REDACTED}` }]);
    expect(suspended?.suspensionReason).toBe(`the suspension mentions ${REDACTED} and ${REDACTED}`);
    expect(pending.map((reply) => reply.text)).toEqual([`the reply mentions ${REDACTED} and ${REDACTED}`]);
    expect((await store.getTurn(failed.turnId))?.failureReason).toBe(`the failure mentions ${REDACTED} and ${REDACTED}`);
    expect((await store.getTurn(rejected.turnId))?.failureReason).toBe(`the rejection mentions ${REDACTED} and ${REDACTED}`);
    expect((await store.listOps(lease.turnId)).map((op) => [op.input, op.result?.split(' filler')[0], op.error])).toEqual([
      [{ query: `input mentions ${REDACTED} and ${REDACTED}` }, `a large result mentions ${REDACTED} and ${REDACTED}`, null],
      [{ query: `input mentions ${REDACTED} and ${REDACTED}` }, undefined, `the error mentions ${REDACTED} and ${REDACTED}`],
    ]);
    expect((await history.read('console:c1')).entries.map((entry) => entry.text)).toEqual([`the summary mentions ${REDACTED} and ${REDACTED}`]);
    expect((await memory.recall({ scope: 'user', ownerId: 'ada', limit: 5 })).notes.map((note) => note.text)).toEqual([`the note mentions ${REDACTED} and ${REDACTED}`]);
    const bytes = bytesUnder(dirname(file.dbPath));
    expect(readdirSync(join(dirname(file.dbPath), 'blobs'))).not.toEqual([]);
    for (const secret of [KEY, TOKEN]) expect(bytes.includes(secret), secret).toBe(false);
    await file.close();
  });

  it('keep secrets out of transcript rows and checkpoint state, and leave images and every other value as written', async () => {
    const file = openTestStoreFile(temp.path());
    const store = redactingTurnStore(file.turns, secrets);
    const lease = await admit(store, 'm-1');
    const image = Buffer.from('png bytes').toString('base64');
    await store.checkpoint(lease, {
      append: [
        {
          role: 'user',
          content: [
            { type: 'text', text: say('the user') },
            { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: image } },
          ],
        },
      ],
      state: { iteration: 2, guard: true, note: say('the state') },
      progressed: true,
    });

    const resumable = await store.loadResumable(lease.turnId);

    expect(resumable?.transcript).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: `the user mentions ${REDACTED} and ${REDACTED}` },
          { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: image } },
        ],
      },
    ]);
    expect(resumable?.checkpoint?.state).toEqual({ iteration: 2, guard: true, note: `the state mentions ${REDACTED} and ${REDACTED}` });
    const bytes = bytesUnder(dirname(file.dbPath));
    for (const secret of [KEY, TOKEN]) expect(bytes.includes(secret), secret).toBe(false);
    await file.close();
  });
});
