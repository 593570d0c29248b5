import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { repeatUntilAborted } from '../core/repeat.js';

/**
 * How often the running bot looks for verdicts it has not told yet (DESIGN §9.1) and for answers
 * and expired requests for approval (§9.2): a verdict or an answer given by `holdfast turns`, or in
 * another process on PostgreSQL, is taken up within about this long. The look is one read of an index that holds only turns still to be told, empty when idle.
 */
export const VERDICT_WATCH_INTERVAL_MS = 2_000;

/**
 * Tells the requesters of the turns the operators resolved, wherever the verdict was given, every
 * `intervalMs` on `clock` until `signal` aborts: `announce` lists the turns still to be told and
 * tells each once (the store decides which caller of any process tells it). A failed round is
 * logged once for a run of failures, and once more when a round works again; each round tries anew.
 */
export async function watchVerdicts(clock: Clock, intervalMs: number, signal: AbortSignal, announce: () => Promise<void>, logger: Logger): Promise<void> {
  let failing = false;
  await repeatUntilAborted(clock, intervalMs, signal, async () => {
    try {
      await announce();
    } catch (error) {
      if (!failing) logger.error({ err: error }, `resolved turns could not be announced: tried again every ${intervalMs / 1000} s, logged again once it works`);
      failing = true;
      return;
    }
    if (failing) logger.info('resolved turns are announced again');
    failing = false;
  });
}
