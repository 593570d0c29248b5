import type { Database } from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { isStoreRefusal, TurnStateUnavailable } from '../errors.js';
import type { RetentionSweepResult, StartupSweepResult } from '../turn_store.js';
import type { Lease } from '../turn_types.js';
import { reportSweep } from '../sweep_report.js';

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

  /** A sweep: a write whose counts are logged for the operators (DESIGN §10). */
  async sweep<T extends StartupSweepResult | RetentionSweepResult>(operation: string, work: () => T): Promise<T> {
    const startedAt = this.clock.monotonicNow();
    const result = await this.write(operation, work);
    reportSweep(this.logger, operation, this.clock.monotonicNow() - startedAt, result);
    return result;
  }

  run<T>(operation: string, work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      if (isStoreRefusal(error)) return Promise.reject(error);
      return Promise.reject(new TurnStateUnavailable(operation, error));
    }
  }
}
