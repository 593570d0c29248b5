import { describe, expect, it } from 'vitest';
import {
  IllegalOpMoveError,
  isIllegalOpMoveError,
  isLedgerIntentError,
  isStaleTurnError,
  isTurnStateUnavailable,
  LedgerIntentError,
  StaleTurnError,
  TurnStateUnavailable,
} from '../../src/turn_state/errors.js';

describe('turn store errors', () => {
  it('say what was refused, and each is recognised by its own guard alone', () => {
    const errors = [
      new StaleTurnError('t1', 'checkpoint'),
      new TurnStateUnavailable('checkpoint', 'disk gone'),
      new IllegalOpMoveError('t1/1/c1', 'DONE', 'RUNNING'),
      new LedgerIntentError('duplicate_id', 'c1'),
    ];
    expect(errors.map((error) => error.message)).toEqual([
      'turn t1: checkpoint was fenced out; another owner holds the turn or the lease expired',
      'the turn store failed during checkpoint: disk gone',
      'op t1/1/c1 cannot move from DONE to RUNNING',
      'tool call id c1 is used twice in the batch',
    ]);
    const guards = [isStaleTurnError, isTurnStateUnavailable, isIllegalOpMoveError, isLedgerIntentError];
    expect(errors.map((error) => guards.map((guard) => guard(error)))).toEqual([
      [true, false, false, false],
      [false, true, false, false],
      [false, false, true, false],
      [false, false, false, true],
    ]);
  });

  it('word the other refusals too', () => {
    expect(new TurnStateUnavailable('sweep', new Error('locked')).message).toBe('the turn store failed during sweep: locked');
    expect(new IllegalOpMoveError('t1/1/c9', undefined, 'DONE').message).toBe('op t1/1/c9 does not exist');
    expect(new LedgerIntentError('empty_id', '').message).toBe('a tool call has an empty id');
    expect(new LedgerIntentError('already_recorded', 'c2').message).toBe('tool call id c2 is already recorded for this step');
  });
});
