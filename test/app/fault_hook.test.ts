import { describe, expect, it } from 'vitest';
import { NO_FAULTS } from '../../src/engine/fault_points.js';
import { faultHookFrom } from '../../src/app/fault_hook.js';

describe('the HOLDFAST_FAULT crash hook', () => {
  it('costs nothing when unset', () => {
    expect(faultHookFrom({})).toBe(NO_FAULTS);
    expect(faultHookFrom({ HOLDFAST_FAULT: '' })).toBe(NO_FAULTS);
  });

  it('kills at the named point, at the named occurrence, and only there', () => {
    const kills: string[] = [];
    const hook = faultHookFrom({ HOLDFAST_FAULT: 'after_wi3:2' }, () => kills.push('killed'));
    hook.reach('after_wi1', 1);
    hook.reach('after_wi3', 1);
    expect(kills).toEqual([]);
    hook.reach('after_wi3', 2);
    expect(kills).toEqual(['killed']);
    const first = faultHookFrom({ HOLDFAST_FAULT: 'after_final_reply' }, () => kills.push('again'));
    first.reach('after_final_reply', 3);
    expect(kills).toEqual(['killed', 'again']);
  });

  it('refuses a value that names no fault point, saying which exist', () => {
    expect(() => faultHookFrom({ HOLDFAST_FAULT: 'after_lunch' })).toThrow(/HOLDFAST_FAULT=after_lunch names no fault point; expected one of after_admission, after_deadline, after_wi1/);
    expect(() => faultHookFrom({ HOLDFAST_FAULT: 'after_wi1:0' })).toThrow(/names no fault point/);
  });
});
