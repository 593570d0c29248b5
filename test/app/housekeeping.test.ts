import { noTurnStore } from '../../src/turn_state/no_store.js';
import { describe, expect, it } from 'vitest';
import { keepHouse } from '../../src/app/housekeeping.js';
import type { StartupSweepResult, TurnStore } from '../../src/turn_state/turn_store.js';
import { ManualClock } from '../support/manual_clock.js';
import { useTempDir } from '../support/temp_dir.js';
import { admitNew, openTestStore, storeWith, TEST_TIMINGS } from '../support/turn_store.js';

const tmp = useTempDir();

describe('keepHouse', () => {
  it('every interval reclaims turns whose lease expired and hands their ids on, goes on after a failed sweep, and stops when the signal aborts', async () => {
    const { store: real, clock } = openTestStore(tmp.path());
    let leaseSweeps = 0;
    const store: TurnStore = storeWith(real, 'sweepExpiredLeases', (): Promise<StartupSweepResult> => {
      leaseSweeps += 1;
      return leaseSweeps === 1 ? Promise.reject(new Error('store busy')) : real.sweepExpiredLeases();
    });
    const lapsed = await admitNew(real, 'lapsed');
    const announced: (readonly string[])[] = [];
    const controller = new AbortController();
    const housekeeping = keepHouse(store, clock, TEST_TIMINGS.leaseTtlMs, controller.signal, (reclaimed) => {
      announced.push(reclaimed);
      return Promise.resolve();
    });
    await clock.whenSleeping();
    expect(announced).toEqual([]);

    await clock.advance(TEST_TIMINGS.leaseTtlMs);
    // The round is over once the next one waits: its sweep is on disk.
    await clock.whenSleeping();
    expect(announced).toEqual([[]]);
    expect((await real.getTurn(lapsed.turnId))?.status).toBe('ACTIVE');
    await clock.advance(TEST_TIMINGS.leaseTtlMs);
    await clock.whenSleeping();
    expect(announced).toEqual([[], [lapsed.turnId]]);
    expect((await real.getTurn(lapsed.turnId))?.status).toBe('SUSPENDED');
    await clock.advance(TEST_TIMINGS.leaseTtlMs);
    await clock.whenSleeping();
    expect(announced).toEqual([[], [lapsed.turnId], []]);

    controller.abort();
    await housekeeping;
    await clock.advance(TEST_TIMINGS.leaseTtlMs);
    expect(announced).toHaveLength(3);
    await real.close();
  });

  it('waits quietly without a store', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const announced: (readonly string[])[] = [];
    const housekeeping = keepHouse(noTurnStore(), clock, 1_000, controller.signal, (reclaimed) => {
      announced.push(reclaimed);
      return Promise.resolve();
    });
    await clock.advance(3_000);
    controller.abort();
    await expect(housekeeping).resolves.toBeUndefined();
    expect(announced).toEqual([[], [], []]);
  });
});
