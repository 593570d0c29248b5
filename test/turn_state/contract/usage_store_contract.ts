import { describe, expect, it } from 'vitest';
import type { ScopeLimit, UsageOwner } from '../../../src/turn_state/usage_store.js';
import type { TurnIdentity } from '../../../src/turn_state/turn_types.js';
import { useKeptHarness, type MakeKeptHarness } from './kept_contract_harness.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const ada: UsageOwner = { source: 'discord', userId: 'ada', channelId: 'general', serverId: 'guild-1' };
const bob: UsageOwner = { source: 'discord', userId: 'bob', channelId: 'general', serverId: 'guild-1' };
const message = (id: string, owner: UsageOwner = ada): TurnIdentity => ({ source: owner.source, channelId: owner.channelId, messageId: id });
const turnsPerHour = (max: number, scope: ScopeLimit['scope'] = 'user'): ScopeLimit => ({ scope, kind: 'turns_per_hour', max });
const tokensPerDay = (max: number, scope: ScopeLimit['scope'] = 'user'): ScopeLimit => ({ scope, kind: 'tokens_per_day', max });

/** The behaviour every `UsageStore` must show, written against the port alone. */
export function describeUsageStoreContract(name: string, make: MakeKeptHarness): void {
  describe(`UsageStore contract: ${name}`, () => {
    const harness = useKeptHarness(make);

    it('refuses the turn over turns_per_hour, saying when the oldest counted turn leaves the hour, and counts the refusal', async () => {
      const { usage, clock } = harness();
      const first = clock.now();
      expect(await usage.admit({ identity: message('m1'), owner: ada, limits: [turnsPerHour(2)] })).toEqual({ kind: 'counted' });
      await clock.advance(10 * MINUTE);
      expect(await usage.admit({ identity: message('m2'), owner: ada, limits: [turnsPerHour(2)] })).toEqual({ kind: 'counted' });
      expect(await usage.admit({ identity: message('m3'), owner: ada, limits: [turnsPerHour(2)] })).toEqual({ kind: 'refused', limit: turnsPerHour(2), used: 2, resetsAt: first + HOUR });
      expect(await usage.admit({ identity: message('b1', bob), owner: bob, limits: [turnsPerHour(2)] })).toEqual({ kind: 'counted' });

      await clock.advance(50 * MINUTE + 1);
      expect(await usage.admit({ identity: message('m4'), owner: ada, limits: [turnsPerHour(2)] })).toEqual({ kind: 'counted' });
      expect(await usage.report({ period: { kind: 'today' }, filter: { scope: 'user', id: 'ada' } })).toEqual([expect.objectContaining({ turns: 3, refusals: 1 })]);
    });

    it('answers a message seen before as it was answered, counting it once', async () => {
      const { usage } = harness();
      await usage.admit({ identity: message('m1'), owner: ada, limits: [turnsPerHour(1)] });
      const refused = await usage.admit({ identity: message('m2'), owner: ada, limits: [turnsPerHour(1)] });
      expect(refused.kind).toBe('refused');
      expect(await usage.admit({ identity: message('m1'), owner: ada, limits: [turnsPerHour(1)] })).toEqual({ kind: 'counted' });
      expect(await usage.admit({ identity: message('m2'), owner: ada, limits: [turnsPerHour(1)] })).toEqual(refused);
      expect(await usage.report({ period: { kind: 'today' } })).toEqual([expect.objectContaining({ turns: 1, refusals: 1 })]);
    });

    it('counts an exempt turn without limiting it, and limits a channel and a server across their users', async () => {
      const { usage } = harness();
      await usage.admit({ identity: message('m1'), owner: ada, limits: [] });
      await usage.admit({ identity: message('m2'), owner: ada, limits: [] });
      expect(await usage.admit({ identity: message('b1', bob), owner: bob, limits: [turnsPerHour(5), turnsPerHour(2, 'channel')] })).toMatchObject({ kind: 'refused', limit: { scope: 'channel' } });
      expect(await usage.admit({ identity: message('b2', bob), owner: bob, limits: [turnsPerHour(3, 'server')] })).toEqual({ kind: 'counted' });
      const elsewhere: UsageOwner = { ...bob, channelId: 'random' };
      expect(await usage.admit({ identity: message('b3', elsewhere), owner: elsewhere, limits: [turnsPerHour(3, 'server')] })).toMatchObject({ kind: 'refused', limit: { scope: 'server' }, used: 3 });
      const direct: UsageOwner = { source: 'discord', userId: 'bob', channelId: 'dm-bob' };
      expect(await usage.admit({ identity: message('b4', direct), owner: direct, limits: [turnsPerHour(1, 'server')] })).toEqual({ kind: 'counted' });
    });

    it('sums a turn’s tokens and cost over its calls, unreported counts adding nothing, and refuses past tokens_per_day until the tokens slide out', async () => {
      const { usage, clock } = harness();
      const start = clock.now();
      await usage.admit({ identity: message('m1'), owner: ada, limits: [] });
      await usage.record(message('m1'), 'ada', [
        { model: 'big', inputTokens: 600, outputTokens: 100, cachedInputTokens: 200, reasoningTokens: 40, cost: 0.01 },
        { model: 'small', inputTokens: null, outputTokens: null, cost: null },
      ]);
      await clock.advance(HOUR);
      await usage.record(message('m1'), 'ada', [{ model: 'big', inputTokens: 250, outputTokens: 50, cost: 0.005 }]);
      const spent = await usage.turnSpent(message('m1'));
      expect(spent.tokens).toBe(1000);
      expect(spent.cost).toBeCloseTo(0.015, 10);
      expect(await usage.turnSpent(message('other'))).toEqual({ tokens: 0, cost: null });

      expect(await usage.admit({ identity: message('m2'), owner: ada, limits: [tokensPerDay(1000)] })).toEqual({ kind: 'refused', limit: tokensPerDay(1000), used: 1000, resetsAt: start + DAY });
      expect(await usage.admit({ identity: message('m3'), owner: ada, limits: [tokensPerDay(1001)] })).toEqual({ kind: 'counted' });
      await clock.advance(DAY - HOUR + 1);
      expect(await usage.admit({ identity: message('m4'), owner: ada, limits: [tokensPerDay(1000)] })).toEqual({ kind: 'counted' });
    });

    it('reports daily totals by user, channel, server or model, largest first, or by day, oldest first, over today, the month or the last days', async () => {
      const { usage, clock } = harness();
      await usage.admit({ identity: message('m1'), owner: ada, limits: [] });
      await usage.record(message('m1'), 'ada', [{ model: 'big', inputTokens: 100, outputTokens: 10, cachedInputTokens: 30, reasoningTokens: 5, cost: 0.5 }]);
      await usage.admit({ identity: message('b1', bob), owner: bob, limits: [] });
      await usage.record(message('b1', bob), 'bob', [
        { model: 'big', inputTokens: 1000, outputTokens: 100, cost: 1 },
        { model: 'local', inputTokens: 50, outputTokens: 5, cost: null },
        { model: 'local', inputTokens: null, outputTokens: null, cost: null },
      ]);

      expect(await usage.report({ period: { kind: 'today' } })).toEqual([
        { key: '', turns: 2, refusals: 0, calls: 4, unknownCalls: 1, inputTokens: 1150, cachedInputTokens: 30, outputTokens: 115, reasoningTokens: 5, cost: 1.5 },
      ]);
      expect((await usage.report({ period: { kind: 'today' }, by: 'user' })).map((row) => [row.key, row.turns, row.inputTokens + row.outputTokens])).toEqual([
        ['bob', 1, 1155],
        ['ada', 1, 110],
      ]);
      expect((await usage.report({ period: { kind: 'today' }, by: 'model' })).map((row) => [row.key, row.calls, row.cost])).toEqual([
        ['big', 2, 1.5],
        ['local', 2, null],
      ]);
      expect(await usage.report({ period: { kind: 'today' }, by: 'server', limit: 1 })).toEqual([expect.objectContaining({ key: 'guild-1', turns: 2 })]);
      expect(await usage.report({ period: { kind: 'today' }, filter: { scope: 'user', id: 'nobody' } })).toEqual([]);

      await clock.advance(3 * DAY);
      expect(await usage.report({ period: { kind: 'today' } })).toEqual([]);
      expect(await usage.report({ period: { kind: 'days', days: 4 } })).toEqual([expect.objectContaining({ turns: 2 })]);
      expect(await usage.report({ period: { kind: 'days', days: 3 } })).toEqual([]);

      await usage.admit({ identity: message('m5'), owner: ada, limits: [] });
      await usage.record(message('m5'), 'ada', [{ model: 'big', inputTokens: 7, outputTokens: 3, cost: null }]);
      const today = new Date(clock.now()).toISOString().slice(0, 10);
      const first = new Date(clock.now() - 3 * DAY).toISOString().slice(0, 10);
      expect((await usage.report({ period: { kind: 'days', days: 7 }, by: 'day' })).map((row) => [row.key, row.turns, row.inputTokens + row.outputTokens])).toEqual([
        [first, 2, 1265],
        [today, 1, 10],
      ]);
    });

    it('sweeps detailed rows past their days and daily totals past theirs', async () => {
      const { usage, clock } = harness();
      await usage.admit({ identity: message('m1'), owner: ada, limits: [] });
      await usage.record(message('m1'), 'ada', [{ model: 'big', inputTokens: 100, outputTokens: 10, cost: null }]);
      await clock.advance(2 * DAY + 1);
      expect(await usage.sweep({ detailDays: 2, dailyDays: 400 })).toBe(2);
      expect(await usage.turnSpent(message('m1'))).toEqual({ tokens: 0, cost: null });
      expect(await usage.report({ period: { kind: 'days', days: 30 } })).toEqual([expect.objectContaining({ turns: 1, inputTokens: 100 })]);
      await clock.advance(400 * DAY);
      expect(await usage.sweep({ detailDays: 2, dailyDays: 400 })).toBe(2);
      expect(await usage.report({ period: { kind: 'days', days: 1000 } })).toEqual([]);
    });

    it('keeps what it counted across a reopen when it is durable', async () => {
      const h = harness();
      await h.usage.admit({ identity: message('m1'), owner: ada, limits: [] });
      await h.reopen();
      expect(await h.usage.admit({ identity: message('m2'), owner: ada, limits: [turnsPerHour(1)] })).toMatchObject({ kind: h.durable ? 'refused' : 'counted' });
    });
  });
}
