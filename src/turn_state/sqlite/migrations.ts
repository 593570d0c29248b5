/**
 * The SQLite store's schema, one step per version, and how a file is brought to the newest: a
 * database at version N runs the steps after N, in order, each in one transaction with foreign
 * keys checked at its end (so that a step may rebuild a table). A step never changes with the
 * code that follows it.
 */
import type { Database } from 'better-sqlite3';
import { EFFECT_CLASSES } from '../ledger_types.js';
import { MEMORY_SCOPES } from '../memory_store.js';
import { REPLY_STATES } from '../reply_types.js';
import { approvalsBeforeCalls, turnsAndOpsWithVerdicts } from './table_rebuilds.js';
import { list, opMovesTable, transcriptTables, turnTracesColumn, usageTables, type ColumnTypes } from '../shared_tables.js';

/** This database's column types, for the tables written once for both. */
const SQLITE_COLUMNS: ColumnTypes = { integer: 'INTEGER', real: 'REAL', identity: 'INTEGER PRIMARY KEY AUTOINCREMENT', keyedOnly: ' WITHOUT ROWID' };

/** The statuses and op states the first schema knew; a migration never changes with the code that follows it. */
const FIRST_TURN_STATUSES = ['ACTIVE', 'SUSPENDED', 'TERMINAL_COMPLETED', 'TERMINAL_FAILED', 'TERMINAL_CANCELLED', 'TERMINAL_REJECTED', 'TERMINAL_EXPIRED'];
const FIRST_OP_STATES = ['PREPARED', 'RUNNING', 'APPLIED', 'DEFINITELY_FAILED', 'OUTCOME_UNKNOWN', 'RECONCILED_APPLIED', 'RECONCILED_FAILED', 'MANUAL_RESOLUTION_REQUIRED'];

/**
 * Schema version 6 (DESIGN §1): a history entry keeps the attachments of the user's message as
 * references to blobs, which `history_blob_refs` keeps from the blob collection, and is found by
 * its message id, so that an edit or a deletion of the message changes it.
 */
const historyAttachmentsAndEdits = `
  ALTER TABLE history_entries ADD COLUMN attachments TEXT;
  CREATE INDEX history_entries_by_message ON history_entries (channel, message_id) WHERE message_id IS NOT NULL;
  CREATE TABLE history_blob_refs (
    entry_id INTEGER NOT NULL REFERENCES history_entries (id) ON DELETE CASCADE,
    digest TEXT NOT NULL,
    PRIMARY KEY (entry_id, digest)
  ) WITHOUT ROWID;
  CREATE INDEX history_blob_refs_by_digest ON history_blob_refs (digest);
`;

/**
 * Schema version 7 (DESIGN §7.1): a user's notes are owned by `source:userId`, as a channel's are
 * by `source:channelId`, so that the same id on two transports does not share notes. A note kept
 * before named its user alone; the console's one user is `console-user` and every other id came
 * from Discord, so the console's notes stay the console's and all others become the Discord
 * user's.
 */

/** SQL for the owner a `user` note kept under the bare user id in `column` has from version 7 on. */
export const userOwnerWithSource = (column: string): string => `(CASE ${column} WHEN 'console-user' THEN 'console:' ELSE 'discord:' END || ${column})`;

const memoryNotesOwnedPerSource = `
  UPDATE memory_notes SET owner_id = ${userOwnerWithSource('owner_id')} WHERE scope = 'user';
`;

/**
 * Schema version 8 (DESIGN §5.4): a pending reply keeps the model that wrote it and whether that
 * was a fallback, so that a reply posted after a restart names its model as it would have. A
 * reply stored before has no model.
 */
const repliesKeepTheirAuthor = `
  ALTER TABLE replies ADD COLUMN written_by_model TEXT;
  ALTER TABLE replies ADD COLUMN written_by_fallback INTEGER NOT NULL DEFAULT 0 CHECK (written_by_fallback IN (0, 1));
`;

/**
 * Schema version 11 (DESIGN §9.1): the turns whose requester is still to be told of the operators'
 * verdicts, found through an index that holds only them, so that the running bot's watch for new
 * verdicts every few seconds reads an empty index while there are none.
 */
const resolvedUntoldIndexed = `
  CREATE INDEX turns_resolved_untold ON turns (source, updated_at) WHERE status = 'SUSPENDED' AND resolution_untold = 1;
`;

/**
 * Schema version 12 (DESIGN §4.2): a history entry keeps how the transport named its author when
 * the message was said, so that a later turn, after any restart, shows who said what. An entry
 * kept before names no one.
 */
const historyKeepsAuthorNames = `
  ALTER TABLE history_entries ADD COLUMN author_name TEXT;
`;

/**
 * The schema, one entry per version; a database at version N runs the entries after N, in order,
 * each in one transaction with foreign keys checked at its end (so that a step may rebuild a table).
 */
export const TURN_STORE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE turns (
    turn_id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    requester_id TEXT NOT NULL,
    message_digest TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN (${list(FIRST_TURN_STATUSES)})),
    generation INTEGER NOT NULL,
    revision INTEGER NOT NULL,
    lease_token TEXT,
    lease_expires_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    last_progress_at INTEGER NOT NULL,
    recovery_deadline_at INTEGER,
    suspension_reason TEXT,
    failure_reason TEXT,
    payload_compacted INTEGER NOT NULL DEFAULT 0,
    UNIQUE (source, channel_id, message_id)
  );
  CREATE INDEX turns_by_status ON turns (status);
  CREATE INDEX turns_by_channel ON turns (source, channel_id, status);

  ${transcriptTables(SQLITE_COLUMNS)}

  CREATE TABLE ops (
    turn_id TEXT NOT NULL REFERENCES turns (turn_id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    tool_call_id TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    effect TEXT NOT NULL CHECK (effect IN (${list(EFFECT_CLASSES)})),
    state TEXT NOT NULL CHECK (state IN (${list(FIRST_OP_STATES)})),
    idempotency_key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    input TEXT NOT NULL,
    result TEXT,
    result_blob TEXT,
    error TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (turn_id, step, tool_call_id)
  ) WITHOUT ROWID;

  CREATE TABLE blob_refs (
    turn_id TEXT NOT NULL REFERENCES turns (turn_id) ON DELETE CASCADE,
    digest TEXT NOT NULL,
    owner TEXT NOT NULL CHECK (owner IN ('transcript', 'op')),
    PRIMARY KEY (turn_id, digest, owner)
  ) WITHOUT ROWID;
  CREATE INDEX blob_refs_by_digest ON blob_refs (digest);
  `,
  `
  CREATE TABLE replies (
    turn_id TEXT PRIMARY KEY REFERENCES turns (turn_id) ON DELETE CASCADE,
    state TEXT NOT NULL CHECK (state IN (${list(REPLY_STATES)})),
    text TEXT,
    parts_delivered INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    delivered_at INTEGER,
    failure TEXT
  ) WITHOUT ROWID;
  CREATE INDEX replies_pending ON replies (state) WHERE state = 'pending';
  `,
  `
  CREATE TABLE history_channels (
    channel TEXT PRIMARY KEY,
    revision INTEGER NOT NULL CHECK (revision > 0)
  ) WITHOUT ROWID;
  CREATE TABLE history_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    channel TEXT NOT NULL REFERENCES history_channels (channel),
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'summary')),
    text TEXT NOT NULL,
    author_id TEXT,
    message_id TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX history_entries_by_channel ON history_entries (channel, id);
  CREATE UNIQUE INDEX history_one_summary_per_channel ON history_entries (channel) WHERE role = 'summary';

  CREATE TABLE memory_notes (
    id INTEGER PRIMARY KEY,
    idempotency_key TEXT NOT NULL UNIQUE,
    scope TEXT NOT NULL CHECK (scope IN (${list(MEMORY_SCOPES)})),
    owner_id TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX memory_notes_by_owner ON memory_notes (scope, owner_id, id);

  CREATE TABLE previous_layout_imports (
    what TEXT PRIMARY KEY CHECK (what IN ('history', 'memory')),
    file TEXT NOT NULL,
    imported_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  `
  CREATE TABLE inbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    message TEXT NOT NULL,
    accepted_at INTEGER NOT NULL,
    UNIQUE (source, channel_id, message_id)
  );
  `,
  turnsAndOpsWithVerdicts,
  historyAttachmentsAndEdits,
  memoryNotesOwnedPerSource,
  repliesKeepTheirAuthor,
  // Version 9: the one row a readiness probe writes, to prove the store takes a durable write now.
  `
  CREATE TABLE store_probe (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    probed_at INTEGER NOT NULL
  );
  `,
  // Version 10: a lease names the process that holds it, as PostgreSQL's do, so that every store operation is one statement for both.
  `
  ALTER TABLE turns ADD COLUMN owner_instance TEXT;
  `,
  resolvedUntoldIndexed,
  historyKeepsAuthorNames,
  // Version 13 (DESIGN §5.4): the model an admin chose for a channel with /model, one row per channel.
  `
  CREATE TABLE channel_models (
    channel TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    chosen_by TEXT NOT NULL,
    chosen_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  approvalsBeforeCalls,
  // Version 15 (DESIGN §10.1): each turn counted against its owner, or refused by a limit; each model call's tokens and cost; the totals of each day.
  usageTables(SQLITE_COLUMNS),
  // Version 16 (DESIGN §6): each state a call of the ledger entered, when, and who moved it.
  opMovesTable(SQLITE_COLUMNS),
  // Version 17 (DESIGN §10.3): the traces of a turn's runs.
  turnTracesColumn,
];

/** Brings `db` to the newest of `migrations`; `what` names the store in the errors. */
export function migrate(db: Database, migrations: readonly string[], what: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(`the ${what} is at schema version ${current}, newer than this program's ${migrations.length}`);
  }
  if (current === migrations.length) return;
  // Foreign keys off while a step runs (a rebuilt parent table must not cascade), checked before it commits.
  db.pragma('foreign_keys = OFF');
  try {
    migrations.slice(current).forEach((sql, index) => {
      db.transaction(() => {
        db.exec(sql);
        const broken = db.pragma('foreign_key_check') as unknown[];
        if (broken.length > 0) throw new Error(`the ${what} would break ${broken.length} foreign key(s) at schema version ${current + index + 1}`);
        db.pragma(`user_version = ${current + index + 1}`);
      })();
    });
  } finally {
    db.pragma('foreign_keys = ON');
  }
}
