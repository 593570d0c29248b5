/** A table of the store that `holdfast migrate` copies from the SQLite file into PostgreSQL. */
export interface CopiedTable {
  readonly name: string;
  /** The columns both stores have, as PostgreSQL names them. */
  readonly columns: readonly string[];
  /** How SQLite reads a column whose name differs there. */
  readonly sourceOf?: Readonly<Record<string, string>>;
  /** SQLite's order of the rows, so that they arrive in PostgreSQL in the order they were written. */
  readonly order: string;
  /**
   * The identity column whose values are copied as they are, after which PostgreSQL numbers new
   * rows; `autoincrement` when SQLite never reuses a number, not even that of a deleted last row.
   */
  readonly identity?: { readonly column: string; readonly autoincrement: boolean };
}

/**
 * Every table the two stores share, parents before the rows that refer to them (blobs, which
 * are files beside the SQLite store, go first). A turn's SQLite rowid, which orders turns
 * admitted in the same millisecond, becomes its `admitted`; `owner_instance` stays empty, no
 * process owning a stopped installation's turns. SQLite's record of the previous layout's import
 * stays behind: there is nothing left to import.
 */
export const COPIED_TABLES: readonly CopiedTable[] = [
  {
    name: 'turns',
    columns: [
      'admitted',
      'turn_id',
      'source',
      'channel_id',
      'message_id',
      'requester_id',
      'message_digest',
      'status',
      'generation',
      'revision',
      'lease_token',
      'lease_expires_at',
      'created_at',
      'updated_at',
      'last_progress_at',
      'recovery_deadline_at',
      'suspension_reason',
      'failure_reason',
      'payload_compacted',
      'resolution_untold',
    ],
    sourceOf: { admitted: 'rowid' },
    order: 'rowid',
    identity: { column: 'admitted', autoincrement: false },
  },
  { name: 'transcript', columns: ['turn_id', 'seq', 'message'], order: 'turn_id, seq' },
  { name: 'checkpoints', columns: ['turn_id', 'seq', 'transcript_length', 'state', 'created_at'], order: 'turn_id, seq' },
  {
    name: 'ops',
    columns: [
      'turn_id',
      'step',
      'tool_call_id',
      'tool_name',
      'effect',
      'state',
      'idempotency_key',
      'fingerprint',
      'input',
      'result',
      'result_blob',
      'error',
      'created_at',
      'updated_at',
      'verdict_by',
      'verdict_at',
      'verdict_text',
    ],
    order: 'turn_id, step, tool_call_id',
  },
  { name: 'blob_refs', columns: ['turn_id', 'digest', 'owner'], order: 'turn_id, digest, owner' },
  { name: 'replies', columns: ['turn_id', 'state', 'text', 'parts_delivered', 'created_at', 'updated_at', 'delivered_at', 'failure', 'written_by_model', 'written_by_fallback'], order: 'turn_id' },
  { name: 'inbox', columns: ['id', 'source', 'channel_id', 'message_id', 'message', 'accepted_at'], order: 'id', identity: { column: 'id', autoincrement: true } },
  { name: 'history_channels', columns: ['channel', 'revision'], order: 'channel' },
  {
    name: 'history_entries',
    columns: ['id', 'channel', 'role', 'text', 'author_id', 'message_id', 'attachments', 'created_at'],
    order: 'id',
    identity: { column: 'id', autoincrement: true },
  },
  { name: 'history_blob_refs', columns: ['entry_id', 'digest'], order: 'entry_id, digest' },
  { name: 'memory_notes', columns: ['id', 'idempotency_key', 'scope', 'owner_id', 'text', 'created_at'], order: 'id', identity: { column: 'id', autoincrement: false } },
];

/** The SQLite expression of a column. */
export function sqliteColumn(table: CopiedTable, column: string): string {
  const source = table.sourceOf?.[column];
  return source === undefined ? column : `${source} AS ${column}`;
}
