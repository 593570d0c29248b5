import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database } from 'better-sqlite3';
import { BlobStore } from '../blob_store.js';
import type { OperatorStore, ReplyDelivery, StoreCensus, TurnDetail, TurnFilter, TurnOverview, VerdictOutcome, VerdictRequest } from '../operator_store.js';
import type { ReplyState } from '../reply_types.js';
import type { TurnRecord } from '../turn_types.js';
import { createPrivateFile, makePrivateDirectory } from '../private_files.js';
import { storeCensus } from './census.js';
import { SqliteLedger } from './ledger.js';
import { blobDirectoryFor } from './open.js';
import { recordVerdict } from './resolution.js';
import { turnFromRow, type TurnRow } from '../turn_rows.js';
import { overviewFromRow, turnOverviewQuery, type OverviewRow } from '../turn_overview_query.js';
import { statement } from './statements.js';
import type { StoreCalls } from './store_calls.js';
import { turnById } from './turn_reads.js';

/** The operators' view of the store file (DESIGN §9.1), on the connection the turn store uses. */
export class SqliteOperatorStore implements OperatorStore {
  readonly #ledger: SqliteLedger;

  constructor(
    private readonly db: Database,
    private readonly blobs: BlobStore,
    private readonly calls: StoreCalls,
    private readonly now: () => number,
  ) {
    this.#ledger = new SqliteLedger(db, blobs);
  }

  listTurns(filter: TurnFilter): Promise<TurnOverview[]> {
    return this.calls.run('list turns', () => {
      const { sql, params } = turnOverviewQuery(filter, 'rowid');
      return (statement(this.db, sql).all(params) as OverviewRow[]).map(overviewFromRow);
    });
  }

  turnsWithPrefix(prefix: string, limit: number): Promise<TurnRecord[]> {
    return this.calls.run('find turns by prefix', () => {
      const rows = statement(this.db, 'SELECT * FROM turns WHERE substr(turn_id, 1, length(@prefix)) = @prefix ORDER BY turn_id LIMIT @limit').all({ prefix, limit }) as TurnRow[];
      return rows.map(turnFromRow);
    });
  }

  turnDetail(turnId: string): Promise<TurnDetail | undefined> {
    return this.calls.run('read turn detail', () => {
      const turn = turnById(this.db, turnId);
      if (turn === undefined) return undefined;
      return { turn, ops: this.#ledger.list(turnId), reply: this.#reply(turnId) };
    });
  }

  resolveCall(request: VerdictRequest): Promise<VerdictOutcome> {
    return this.calls.write('record verdict', () => recordVerdict(this.db, this.#ledger, request, this.now()));
  }

  census(): Promise<StoreCensus> {
    return this.calls.run('count turns', () => storeCensus(this.db));
  }

  checkIntegrity(): Promise<string[]> {
    return this.calls.run('check integrity', () => {
      const problems = (this.db.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check).filter((line) => line !== 'ok');
      const digests = statement(this.db, 'SELECT digest FROM blob_refs UNION SELECT digest FROM history_blob_refs ORDER BY digest').all() as { digest: string }[];
      for (const { digest } of digests) if (!this.blobs.has(digest)) problems.push(`blob ${digest} is referenced but missing from ${this.blobs.dir}`);
      return problems;
    });
  }

  /**
   * SQLite's online backup of the file, then the blobs its rows refer to beside it: a blob is
   * never changed once written, so the copy is consistent with the copied rows.
   */
  async backup(path: string): Promise<void> {
    if (existsSync(path)) throw new Error(`${path} already exists; a backup never overwrites a file`);
    makePrivateDirectory(dirname(path));
    createPrivateFile(path);
    await this.db.backup(path);
    const copies = BlobStore.open(blobDirectoryFor(path));
    const digests = statement(this.db, 'SELECT digest FROM blob_refs UNION SELECT digest FROM history_blob_refs').all() as { digest: string }[];
    for (const { digest } of digests) if (this.blobs.has(digest)) copies.put(this.blobs.get(digest));
  }

  #reply(turnId: string): ReplyDelivery | null {
    const row = statement(this.db, 'SELECT state, parts_delivered, created_at, delivered_at, failure FROM replies WHERE turn_id = ?').get(turnId) as
      | { state: ReplyState; parts_delivered: number; created_at: number; delivered_at: number | null; failure: string | null }
      | undefined;
    return row === undefined ? null : { state: row.state, partsDelivered: row.parts_delivered, createdAt: row.created_at, deliveredAt: row.delivered_at, failure: row.failure };
  }
}
