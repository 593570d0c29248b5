import type pg from 'pg';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { BackupWithOwnToolsError } from '../errors.js';
import type { OperatorStore, ReplyDelivery, StoreCensus, TurnDetail, TurnFilter, TurnOverview, VerdictOutcome, VerdictRequest } from '../operator_store.js';
import type { ReplyState } from '../reply_types.js';
import { turnFromRow, type TurnRow } from '../turn_rows.js';
import { overviewFromRow, turnOverviewQuery, type OverviewRow } from '../turn_overview_query.js';
import type { TurnRecord } from '../turn_types.js';
import { named } from './named_params.js';
import { PgCalls } from './pg_calls.js';
import { storeCensus } from './pg_census.js';
import { integrityProblems } from './pg_integrity.js';
import { opsOfTurn } from './pg_op_reads.js';
import type { PgQueryable } from './pg_pool.js';
import { recordVerdict } from './pg_resolution.js';
import { turnById } from './pg_turn_reads.js';

export interface PgOperatorStoreOptions {
  /** Only for durations in the logs: every stored time is the database's. */
  readonly clock: Clock;
  readonly logger: Logger;
}

interface ReplyRow {
  state: ReplyState;
  parts_delivered: number;
  created_at: number;
  delivered_at: number | null;
  failure: string | null;
}

/** The operators' view of the shared database (DESIGN §9.1), on the pool the turn store uses; the pool's opener ends it. */
export function pgOperatorStoreOn(pool: pg.Pool, options: PgOperatorStoreOptions): OperatorStore {
  return new PgOperatorStore(pool, options);
}

/** What operators do with the PostgreSQL store: list, inspect, record verdicts (fenced like every write), count and check it. */
export class PgOperatorStore implements OperatorStore {
  readonly #calls: PgCalls;

  constructor(pool: pg.Pool, options: PgOperatorStoreOptions) {
    this.#calls = new PgCalls(pool, options.logger, options.clock);
  }

  listTurns(filter: TurnFilter): Promise<TurnOverview[]> {
    return this.#calls.read('list turns', async (db) => {
      const { sql, params } = turnOverviewQuery(filter, 'admitted');
      const statement = named(sql, params);
      return (await db.query<OverviewRow>(statement.text, statement.values)).rows.map(overviewFromRow);
    });
  }

  turnsWithPrefix(prefix: string, limit: number): Promise<TurnRecord[]> {
    return this.#calls.read('find turns by prefix', async (db) => {
      const { rows } = await db.query<TurnRow>('SELECT * FROM turns WHERE left(turn_id, length($1)) = $1 ORDER BY turn_id LIMIT $2', [prefix, limit]);
      return rows.map(turnFromRow);
    });
  }

  turnDetail(turnId: string): Promise<TurnDetail | undefined> {
    return this.#calls.snapshot('read turn detail', async (db) => {
      const turn = await turnById(db, turnId);
      if (turn === undefined) return undefined;
      return { turn, ops: await opsOfTurn(db, turnId), reply: await replyOf(db, turnId) };
    });
  }

  resolveCall(request: VerdictRequest): Promise<VerdictOutcome> {
    return this.#calls.write('record verdict', (db) => recordVerdict(db, request));
  }

  census(): Promise<StoreCensus> {
    return this.#calls.read('count turns', storeCensus);
  }

  checkIntegrity(): Promise<string[]> {
    return this.#calls.snapshot('check integrity', integrityProblems);
  }

  /**
   * Refuses: a database server's data is copied with its own tools (`pg_dump`), which see every
   * process's writes consistently; nothing is written at the path asked for.
   * @throws {BackupWithOwnToolsError}
   */
  backup(): Promise<void> {
    return Promise.reject(new BackupWithOwnToolsError('postgres', 'pg_dump'));
  }
}

async function replyOf(db: PgQueryable, turnId: string): Promise<ReplyDelivery | null> {
  const { rows } = await db.query<ReplyRow>('SELECT state, parts_delivered, created_at, delivered_at, failure FROM replies WHERE turn_id = $1', [turnId]);
  const row = rows[0];
  return row === undefined ? null : { state: row.state, partsDelivered: row.parts_delivered, createdAt: row.created_at, deliveredAt: row.delivered_at, failure: row.failure };
}
