import { describe, expect, it } from 'vitest';
import {
  IllegalOpMoveError,
  isIllegalOpMoveError,
  isLedgerIntentError,
  isStaleTurnError,
  isTurnStateUnavailable,
  LedgerIntentError,
  StaleTurnError,
  storeCallError,
  TurnStateUnavailable,
} from '../../src/turn_state/errors.js';
import { pgCallError } from '../../src/turn_state/postgres/pg_runner.js';

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

  it('tell the store failing from a fault of the code around it (DESIGN §9.3): only the driver’s and the file system’s errors are the store’s', () => {
    const fromDriver = (error: unknown): boolean => error instanceof Error && error.message === 'driver';
    const diskFull = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
    const refusal = new StaleTurnError('t1', 'checkpoint');
    const unavailable = new TurnStateUnavailable('checkpoint', 'disk gone');
    const bug = new RangeError('Maximum call stack size exceeded');

    expect(isTurnStateUnavailable(storeCallError('checkpoint', new Error('driver'), fromDriver))).toBe(true);
    expect(storeCallError('checkpoint', diskFull, fromDriver)).toMatchObject({ name: 'TurnStateUnavailable', cause: diskFull });
    expect(storeCallError('checkpoint', refusal, fromDriver)).toBe(refusal);
    expect(storeCallError('checkpoint', unavailable, fromDriver)).toBe(unavailable);
    expect(storeCallError('checkpoint', bug, fromDriver)).toBe(bug);
    const thrown = storeCallError('checkpoint', 'a string', fromDriver);
    expect(isTurnStateUnavailable(thrown)).toBe(false);
    expect(thrown).toMatchObject({ message: 'checkpoint threw a string', cause: 'a string' });
    // PostgreSQL's calls know the driver's errors by having seen them come from it, whatever their class.
    expect(pgCallError('checkpoint', new Error('driver'))).toMatchObject({ name: 'Error', message: 'driver' });
    expect(pgCallError('checkpoint', 'a string')).toMatchObject({ message: 'checkpoint threw a string' });
  });
});
