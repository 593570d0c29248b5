import { noTurnStore } from '../../../src/turn_state/no_store.js';
import { describe, expect, it } from 'vitest';
import { readiness, STORE_PROBE_DEADLINE_MS, storeCheck } from '../../../src/app/metrics/readiness.js';
import { ManualClock } from '../../support/manual_clock.js';
import { useTempDir } from '../../support/temp_dir.js';
import { openTestStore, storeWith } from '../../support/turn_store.js';

describe('readiness', () => {
  const temp = useTempDir();

  it('names every part that is not up, in order, and is ready when none is down', async () => {
    expect(await readiness({ store: () => Promise.resolve(false), transport: () => false })).toEqual({ ready: false, not_ready: ['store', 'transport'] });
    expect(await readiness({ store: () => Promise.resolve(true), transport: () => false })).toEqual({ ready: false, not_ready: ['transport'] });
    expect(await readiness({ store: () => Promise.resolve(true), transport: () => true })).toEqual({ ready: true });
  });

  it('calls the store up while it takes a write, and down once it no longer does, or without a durable store at all', async () => {
    const { store } = openTestStore(temp.path());
    const clock = new ManualClock();
    const check = storeCheck(store, clock);
    expect(await check()).toBe(true);
    await store.close();
    expect(await check()).toBe(false);
    expect(await storeCheck(noTurnStore(), clock)()).toBe(false);
  });

  it(`calls a store that does not answer within ${STORE_PROBE_DEADLINE_MS} ms down, and asks a hanging store once however often it is asked meanwhile`, async () => {
    const { store } = openTestStore(temp.path());
    const clock = new ManualClock();
    let probes = 0;
    const check = storeCheck(
      storeWith(store, 'probe', () => {
        probes += 1;
        return new Promise<void>(() => undefined);
      }),
      clock,
    );
    const first = check();
    const second = check();
    await clock.advance(STORE_PROBE_DEADLINE_MS - 1);
    let settled = false;
    void first.then(() => (settled = true));
    await clock.advance(0);
    expect(settled).toBe(false);
    await clock.advance(1);
    expect([await first, await second]).toEqual([false, false]);
    expect(probes).toBe(1);
    await store.close();
  });
});
