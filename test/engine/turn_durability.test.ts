import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeDurability } from '../../src/engine/durability.js';
import { TurnStateUnavailable } from '../../src/turn_state/errors.js';
import type { UsageRecord } from '../../src/turn_state/lease_riders.js';
import type { TurnStore } from '../../src/turn_state/turn_store.js';
import type { Lease } from '../../src/turn_state/turn_types.js';
import { openTestStoreFile, type TestStoreFile } from '../support/store_file.js';
import { useTempDir } from '../support/temp_dir.js';
import { admitNew } from '../support/turn_store.js';

const identity = { source: 'console', channelId: 'channel-1', messageId: 'm-1' };
const usage = (inputTokens: number): UsageRecord => ({ identity, requesterId: 'user-1', calls: [{ model: 'm', inputTokens, outputTokens: 0, cost: null }] });

describe('a turn’s writes and what rides with them (DESIGN §7.3)', () => {
  const temp = useTempDir();
  let opened: TestStoreFile;
  let lease: Lease;
  /** The store's deadline writes of their own, counted. */
  let ownDeadlines: number;
  let store: TurnStore;
  beforeEach(async () => {
    opened = openTestStoreFile(temp.path());
    lease = await admitNew(opened.turns, 'm-1');
    ownDeadlines = 0;
    store = {
      ...opened.turns,
      setRecoveryDeadline: (held, deadlineAt) => {
        ownDeadlines += 1;
        return opened.turns.setRecoveryDeadline(held, deadlineAt);
      },
    };
  });
  afterEach(() => opened.close());

  it('gives the model call the deadline its checkpoint stored, without a write of its own, and stores one alone when no write armed it', async () => {
    const durability = storeDurability(store, lease, { deadline: { clock: opened.clock, budgetMs: 25_000 } });
    expect(await durability.recoveryDeadline(opened.clock.now(), 25_000)).toBe(opened.clock.now() + 25_000);
    expect(ownDeadlines).toBe(1);
    await durability.checkpoint([], { step: 1 }, true);
    await opened.clock.advance(40);
    expect(await durability.recoveryDeadline(opened.clock.now(), 25_000)).toBe(opened.clock.now() - 40 + 25_000);
    expect(ownDeadlines).toBe(1);
    expect((await opened.turns.getTurn(lease.turnId))?.recoveryDeadlineAt).toBe(opened.clock.now() - 40 + 25_000);
  });

  it('never gives a call more time than its budget: an armed deadline past it is replaced by one stored now', async () => {
    const durability = storeDurability(store, lease, { armedAt: opened.clock.now() + 60_000 });
    expect(await durability.recoveryDeadline(opened.clock.now(), 1_000)).toBe(opened.clock.now() + 1_000);
    expect(ownDeadlines).toBe(1);
    expect((await opened.turns.getTurn(lease.turnId))?.recoveryDeadlineAt).toBe(opened.clock.now() + 1_000);
  });

  it('keeps the usage a failed write was to carry, and stores it with the next write, with what came after it', async () => {
    let failing = true;
    const flaky: TurnStore = {
      ...store,
      checkpoint: (held, write, riders) => {
        if (!failing) return store.checkpoint(held, write, riders);
        failing = false;
        return Promise.reject(new TurnStateUnavailable('checkpoint', new Error('disk I/O error')));
      },
    };
    const durability = storeDurability(flaky, lease);
    durability.carryUsage(usage(100));
    await expect(durability.checkpoint([], { step: 1 }, true)).rejects.toThrow('disk I/O error');
    durability.carryUsage(usage(20));
    await durability.checkpoint([], { step: 1 }, true);
    expect(await opened.usage.turnSpent(identity)).toEqual({ tokens: 120, cost: null });
  });
});
