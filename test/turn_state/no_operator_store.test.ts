import { describe, expect, it } from 'vitest';
import { isTurnStateUnavailable } from '../../src/turn_state/errors.js';
import { NO_OPERATOR_STORE } from '../../src/turn_state/no_store.js';

describe('the operators’ view of a store that keeps nothing (durability off)', () => {
  it('has no turn to list, find or show, no process, counts nothing, reports no usage, finds no problem, and refuses a backup as the store being away', async () => {
    expect(await NO_OPERATOR_STORE.listTurns({})).toEqual([]);
    expect(await NO_OPERATOR_STORE.turnsWithPrefix('ab', 5)).toEqual([]);
    expect(await NO_OPERATOR_STORE.turnDetail('t-1')).toBeUndefined();
    expect(await NO_OPERATOR_STORE.turnWork('t-1')).toBeUndefined();
    expect(await NO_OPERATOR_STORE.processes()).toEqual([]);
    expect(Object.values(await NO_OPERATOR_STORE.census()).every((count) => count === 0)).toBe(true);
    expect(await NO_OPERATOR_STORE.usage({ period: { kind: 'month' }, by: 'user' })).toEqual([]);
    expect(await NO_OPERATOR_STORE.checkIntegrity()).toEqual([]);
    expect(isTurnStateUnavailable(await NO_OPERATOR_STORE.backup('/tmp/never').catch((error: unknown) => error))).toBe(true);
  });
});
