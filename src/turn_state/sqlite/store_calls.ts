import type { Database } from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { isIllegalOpMoveError, isLedgerIntentError, isStaleTurnError, isUndecodableTurnError, TurnStateUnavailable } from '../errors.js';
import type { RetentionSweepResult, StartupSweepResult, UncertainCall } from '../turn_store.js';
import type { Lease } from '../turn_types.js';
import { warnOutcomeUnknown } from '../outcome_unknown_log.js';

/**
 * How every call of the SQLite store runs (DESIGN §7.2, §7.3): a read as it is, a write in one
 * IMMEDIATE transaction. The store's own failures become TurnStateUnavailable; a fence, ledger
 * or intent refusal stays itself, so the engine can tell a superseded owner from a dead store.
 */
export class StoreCalls {
  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  /** `work` in one IMMEDIATE transaction, without the error translation (admission answers its own failures). */
  inWriteTransaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  /** A write; when it rolls back, `lease` is put back as it was, so the owner's copy never runs ahead of the row. */
  write<T>(operation: string, work: () => T, lease?: Lease): Promise<T> {
    const before = lease === undefined ? undefined : { revision: lease.revision, expiresAt: lease.expiresAt };
    return this.run(operation, () => {
      try {
        return this.inWriteTransaction(work);
      } catch (error) {
        if (lease !== undefined && before !== undefined) Object.assign(lease, before);
        throw error;
      }
    });
  }

  /**
   * A sweep: a write whose counts are logged for the operators (DESIGN §10): at INFO with its
   * duration and the turns it touched when it changed something, else at DEBUG; and one WARN
   * line for each call it made OUTCOME_UNKNOWN.
   */
  async sweep<T extends StartupSweepResult | RetentionSweepResult>(operation: string, work: () => T): Promise<T> {
    const startedAt = this.clock.monotonicNow();
    const result = await this.write(operation, work);
    const { counts, uncertainCalls } = sweepReport(result);
    const fields = { sweep: operation, durationMs: this.clock.monotonicNow() - startedAt, ...counts };
    if (Object.values(counts).some((count) => typeof count === 'number' && count > 0)) this.logger.info(fields, `${operation} done`);
    else this.logger.debug(fields, `${operation} done`);
    for (const call of uncertainCalls) warnOutcomeUnknown(this.logger, call);
    return result;
  }

  run<T>(operation: string, work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      if (isStaleTurnError(error) || isIllegalOpMoveError(error) || isLedgerIntentError(error) || isUndecodableTurnError(error)) return Promise.reject(error);
      return Promise.reject(new TurnStateUnavailable(operation, error));
    }
  }
}

/** A sweep's counts, apart from the calls it made uncertain, which get a line each. */
function sweepReport(result: StartupSweepResult | RetentionSweepResult): { counts: object; uncertainCalls: readonly UncertainCall[] } {
  if (!('uncertainCalls' in result)) return { counts: result, uncertainCalls: [] };
  const { uncertainCalls, ...counts } = result;
  return { counts, uncertainCalls };
}
