import BetterSqlite3 from 'better-sqlite3';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newChatTurn, turnDefaults, userMessage } from '../../src/conversation/turns/admission.js';
import { initialCheckpoint } from '../../src/engine/fresh_turn.js';
import { restoreFromLog } from '../../src/engine/restore_from_log.js';
import { storeDurability } from '../../src/engine/durability.js';
import type { MessageAttachment } from '../../src/conversation/history/message_attachment.js';
import { runTurn } from '../../src/engine/run_turn.js';
import { type Config, parseConfigText } from '../../src/app/config_schema.js';
import { ManualClock } from '../support/manual_clock.js';
import { deriveCatalog } from '../../src/tools/catalog.js';
import { engineHarness } from '../support/engine_harness.js';
import { chatText } from '../support/fake_llm/openai_chat.js';
import { FakeLLMServer, type FakeStep } from '../support/fake_llm/server.js';
import { runToCompletion } from '../support/recovery_runtime.js';
import { useTempDir } from '../support/temp_dir.js';
import { admissionFor, openTestStore } from '../support/turn_store.js';

const PNG_DATA = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const image: MessageAttachment = { kind: 'image', name: 'cat.png', mediaType: 'image/png', data: PNG_DATA };
const notes: MessageAttachment = { kind: 'text', name: 'notes.txt', text: 'a cat, probably' };
const overloaded: FakeStep = { kind: 'reply', status: 529, body: { error: { type: 'overloaded_error' } } };

type ChatBody = { messages: { role: string; content: unknown }[] };
const userMessagesOf = (body: unknown): unknown[] => (body as ChatBody).messages.filter((m) => m.role === 'user').map((m) => m.content);

describe('a turn whose message has attachments, against a real store and the real OpenAI chat provider', () => {
  const temp = useTempDir();
  let fake: FakeLLMServer;

  beforeEach(async () => {
    fake = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await fake.close();
  });

  const configWith = (vision: boolean): Config => parseConfigText(`llm:\n  vision: ${vision}\ntools:\n  builtin: []\n`, 'c.yml', {});

  it('sends the image to a model that sees images, keeps it through suspension and a restart, and sends it again on resume', async () => {
    const config = configWith(true);
    const clock = new ManualClock();
    const first = openTestStore(temp.path(), clock);
    const before = engineHarness(first.store, clock, fake, config);
    const admission = await first.store.admit(
      admissionFor('m-1', undefined, initialCheckpoint(turnDefaults(config, { now: clock.now(), names: undefined }), [userMessage('what is in the picture?', config, [image, notes])])),
    );
    if (admission.disposition !== 'admitted') throw new Error(`expected admission, got ${admission.disposition}`);
    const parts = {
      turnId: admission.lease.turnId,
      identity: admission.turn.identity,
      requester: { userId: 'user-1', roleIds: [] },
      tools: [],
      signal: new AbortController().signal,
      logger: pino({ level: 'silent' }),
    };
    const turn = newChatTurn(parts, 'what is in the picture?', config, { now: clock.now(), names: undefined }, [image, notes]);
    const expected = [
      { type: 'text', text: 'what is in the picture?' },
      { type: 'text', text: 'The user attached the image `cat.png`:' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_DATA}` } },
      { type: 'text', text: 'The user attached the file `notes.txt`:\n\n```txt\na cat, probably\n```' },
    ];

    fake.enqueue(...Array.from({ length: 12 }, () => overloaded));
    const suspended = await runToCompletion(before.recoveryClock, runTurn(turn, { kind: 'fresh' }, storeDurability(first.store, admission.lease), before.deps));
    expect(suspended.status).toBe('SUSPENDED');
    expect(userMessagesOf(fake.requests[0]?.body)).toEqual([expected]);
    await first.store.close();

    // The bytes live in the blob store, not in the transcript row.
    const raw = new BetterSqlite3(first.dbPath, { readonly: true });
    const rows = raw.prepare('SELECT * FROM transcript').all() as Record<string, unknown>[];
    raw.close();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(PNG_DATA);

    const second = openTestStore(temp.path(), clock);
    const resumable = await second.store.loadResumable(turn.turnId);
    if (resumable === undefined) throw new Error('turn vanished');
    expect(resumable.transcript).toEqual(turn.transcript);
    const reconstructed = { ...parts, tools: deriveCatalog(config.tools, { memory: undefined }).tools };
    const restored = restoreFromLog(resumable, reconstructed, turnDefaults(config, { now: clock.now(), names: undefined }));
    const claim = await second.store.claimResume(turn.turnId, resumable.turn.generation);
    if (!claim.won) throw new Error(`resume not won: ${claim.reason}`);
    fake.reset();
    fake.enqueue(chatText('A cat.'));
    const after = engineHarness(second.store, clock, fake, config);
    const ending = await runToCompletion(after.recoveryClock, runTurn(restored.turn, { kind: 'resumed', log: restored.log }, storeDurability(second.store, claim.lease), after.deps));
    expect(ending).toEqual({ status: 'TERMINAL_COMPLETED', reply: 'A cat.' });
    expect(userMessagesOf(fake.requests[0]?.body)).toEqual([expected]);
    await second.store.close();
  });

  it('tells a model that does not see images what was attached, and sends no image', async () => {
    const config = configWith(false);
    const { store, clock } = openTestStore(temp.path());
    const harness = engineHarness(store, clock, fake, config);
    const admission = await store.admit(admissionFor('m-1'));
    if (admission.disposition !== 'admitted') throw new Error(`expected admission, got ${admission.disposition}`);
    const parts = {
      turnId: admission.lease.turnId,
      identity: admission.turn.identity,
      requester: { userId: 'user-1', roleIds: [] },
      tools: [],
      signal: new AbortController().signal,
      logger: pino({ level: 'silent' }),
    };
    fake.enqueue(chatText('I cannot see images here.'));
    const turn = newChatTurn(parts, 'what is in the picture?', config, { now: clock.now(), names: undefined }, [image]);
    const ending = await runToCompletion(harness.recoveryClock, runTurn(turn, { kind: 'fresh' }, storeDurability(store, admission.lease), harness.deps));
    expect(ending.status).toBe('TERMINAL_COMPLETED');
    expect(userMessagesOf(fake.requests[0]?.body)).toEqual([
      'what is in the picture?\nThe user attached `cat.png`, but it is not included here: this model is not set up to see images. Tell the user if it matters for the answer.',
    ]);
    await store.close();
  });
});
