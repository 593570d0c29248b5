import type { Logger } from '../core/logger.js';
import { warnOutcomeUnknown } from './outcome_unknown_log.js';
import type { RetentionSweepResult, StartupSweepResult, UncertainCall } from './turn_store.js';

/**
 * Logs what a sweep did for the operators (DESIGN §10): at INFO with its duration and counts when
 * it changed something, else at DEBUG; and one WARN line for each call it made OUTCOME_UNKNOWN.
 */
export function reportSweep(logger: Logger, operation: string, durationMs: number, result: StartupSweepResult | RetentionSweepResult): void {
  const { counts, uncertainCalls } = sweepReport(result);
  const fields = { sweep: operation, durationMs, ...counts };
  if (Object.values(counts).some((count) => typeof count === 'number' && count > 0)) logger.info(fields, `${operation} done`);
  else logger.debug(fields, `${operation} done`);
  for (const call of uncertainCalls) warnOutcomeUnknown(logger, call);
}

/** A sweep's counts, apart from the calls it made uncertain, which get a line each. */
function sweepReport(result: StartupSweepResult | RetentionSweepResult): { counts: object; uncertainCalls: readonly UncertainCall[] } {
  if (!('uncertainCalls' in result)) return { counts: result, uncertainCalls: [] };
  const { uncertainCalls, ...counts } = result;
  return { counts, uncertainCalls };
}
