import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { openSqliteStore } from '../../src/turn_state/sqlite/open_store.js';
import type { OpenedStore } from '../../src/turn_state/opened_store.js';
import type { LeaseRiders } from '../../src/turn_state/lease_riders.js';
import { isStaleTurnError } from '../../src/turn_state/errors.js';
import { ManualClock } from '../support/manual_clock.js';
import { SequentialIds } from '../support/sequential_ids.js';
import { storeFileIn } from '../support/store_file.js';
import { useTempDir } from '../support/temp_dir.js';
import { TEST_TIMINGS } from '../support/turn_store.js';
import { admissionRequest, admitNew, identity, modelTurn } from './contract/fixtures.js';

const tmp = useTempDir();

describe('writes that ride with a turn’s own write (DESIGN §7.3)', () => {
  const clock = new ManualClock();
  let store: OpenedStore;
  beforeEach(() => {
    store = openSqliteStore({ enabled: true, dbPath: storeFileIn(tmp.path()), baseDir: tmp.path(), clock, ids: new SequentialIds('t'), logger: pino({ level: 'silent' }), ...TEST_TIMINGS });
  });
  afterEach(() => store.close());

  const riders = (text: string): LeaseRiders => ({
    deadlineAt: clock.now() + 25_000,
    usage: { identity: identity(), requesterId: 'user-1', calls: [{ model: 'm', inputTokens: 100, outputTokens: 20, cost: 0.5 }] },
    history: { channel: 'discord:chan-1', entry: { role: 'assistant', text } },
  });

  it('are kept with the write they ride with: the next call’s deadline, what the calls cost and the history’s new entry', async () => {
    const { lease } = await admitNew(store.turns);
    await store.turns.recordModelTurn(lease, modelTurn(1, []), riders('first'));
    await store.turns.checkpoint(lease, { append: [], state: { step: 1 }, progressed: true }, riders('second'));
    expect((await store.turns.getTurn(lease.turnId))?.recoveryDeadlineAt).toBe(clock.now() + 25_000);
    expect(await store.usage.turnSpent(identity())).toEqual({ tokens: 240, cost: 1 });
    expect((await store.history.read('discord:chan-1')).entries.map((entry) => entry.text)).toEqual(['first', 'second']);
  });

  it('are not kept when the write they ride with is fenced out', async () => {
    const { lease } = await admitNew(store.turns);
    await store.turns.suspend(lease, 'provider overloaded');
    const refused = await store.turns.complete(lease, 'Done.', undefined, riders('Done.')).catch((error: unknown) => error);
    expect(isStaleTurnError(refused)).toBe(true);
    expect(await store.usage.turnSpent(identity())).toEqual({ tokens: 0, cost: null });
    expect((await store.history.read('discord:chan-1')).entries).toEqual([]);
  });

  it('go with an admission only when it admits the message: a message seen before joins the history once', async () => {
    const request = { ...admissionRequest(identity()), riders: { history: { channel: 'discord:chan-1', entry: { role: 'user', text: 'hello' } }, deadlineAt: 5_000 } } as const;
    const admitted = await store.turns.admit(request);
    expect(admitted.disposition).toBe('admitted');
    expect((await store.turns.admit(request)).disposition).toBe('in_progress');
    expect((await store.history.read('discord:chan-1')).entries.map((entry) => entry.text)).toEqual(['hello']);
    expect(admitted.disposition === 'admitted' ? (await store.turns.getTurn(admitted.lease.turnId))?.recoveryDeadlineAt : undefined).toBe(5_000);
  });
});
