import { describe, expect, it } from 'vitest';
import type { BotServices } from '../../src/app/bot_services.js';
import { keepHouse } from '../../src/app/housekeeping.js';
import { ManualClock } from '../support/manual_clock.js';

/** Services whose store records each sweep; the first lease sweep fails. */
function sweepingServices(): { readonly services: BotServices; readonly sweeps: string[] } {
  const sweeps: string[] = [];
  let leaseSweeps = 0;
  const store = {
    sweepExpiredLeases: () => {
      leaseSweeps += 1;
      sweeps.push(`leases ${leaseSweeps}`);
      return leaseSweeps === 1 ? Promise.reject(new Error('store busy')) : Promise.resolve(0);
    },
    sweepRetention: () => {
      sweeps.push('retention');
      return Promise.resolve();
    },
  };
  return { services: { store } as unknown as BotServices, sweeps };
}

describe('keepHouse', () => {
  it('sweeps and announces resolved turns every interval, goes on after a failed sweep, and stops when the signal aborts', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const { services, sweeps } = sweepingServices();
    const housekeeping = keepHouse(services, clock, 60_000, controller.signal, () => {
      sweeps.push('announce');
      return Promise.resolve();
    });
    await clock.whenSleeping();
    expect(sweeps).toEqual([]);
    await clock.advance(60_000);
    expect(sweeps).toEqual(['leases 1', 'announce']);
    await clock.advance(60_000);
    expect(sweeps).toEqual(['leases 1', 'announce', 'leases 2', 'retention', 'announce']);
    controller.abort();
    await housekeeping;
    await clock.advance(60_000);
    expect(sweeps).toHaveLength(5);
  });

  it('waits quietly without a store', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const housekeeping = keepHouse({ store: undefined } as unknown as BotServices, clock, 1_000, controller.signal, () => Promise.resolve());
    await clock.advance(3_000);
    controller.abort();
    await expect(housekeeping).resolves.toBeUndefined();
  });
});
