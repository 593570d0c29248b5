import { describe, expect, it } from 'vitest';
import { watchVerdicts } from '../../src/app/verdict_watch.js';
import { TurnStateUnavailable } from '../../src/turn_state/errors.js';
import { LEVEL, LogLines } from '../support/log_lines.js';
import { ManualClock } from '../support/manual_clock.js';

const FAILED = 'resolved turns could not be announced: tried again every 2 s, logged again once it works';
const WORKS_AGAIN = 'resolved turns are announced again';

describe('the watch for verdicts (DESIGN §9.1)', () => {
  it('looks every interval, logs a run of failed looks once and its end once, goes on after each, and stops when the signal aborts', async () => {
    const clock = new ManualClock();
    const logs = new LogLines('info');
    const outcomes = ['fail', 'fail', 'fail', 'work', 'work', 'fail', 'work'];
    let looks = 0;
    const controller = new AbortController();
    const watching = watchVerdicts(
      clock,
      2_000,
      controller.signal,
      () => {
        const outcome = outcomes[looks];
        looks += 1;
        return outcome === 'fail' ? Promise.reject(new TurnStateUnavailable('list resolved', new Error('database is locked'))) : Promise.resolve();
      },
      logs.logger,
    );
    await clock.whenSleeping();
    expect(looks).toBe(0);

    for (let round = 1; round <= outcomes.length; round += 1) {
      await clock.advance(2_000);
      await clock.whenSleeping();
      expect(looks).toBe(round);
    }

    expect(logs.lines.map((line) => [line.level, line.msg])).toEqual([
      [LEVEL.error, FAILED],
      [LEVEL.info, WORKS_AGAIN],
      [LEVEL.error, FAILED],
      [LEVEL.info, WORKS_AGAIN],
    ]);
    expect(logs.withMessage(FAILED)[0]?.['err']).toMatchObject({ message: expect.stringContaining('database is locked') as unknown });
    controller.abort();
    await expect(watching).resolves.toBeUndefined();
    await clock.advance(10_000);
    expect(looks).toBe(outcomes.length);
  });
});
