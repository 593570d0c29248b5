import { EFFECT_CLASSES } from '../ledger_types.js';
import { MEMORY_SCOPES } from '../memory_store.js';
import { REPLY_STATES } from '../reply_types.js';
import { historyAttachmentsAndEdits } from './history_schema.js';
import { memoryNotesOwnedPerSource } from './memory_owner_schema.js';
import { repliesKeepTheirAuthor } from './reply_author_schema.js';
import { turnsAndOpsWithVerdicts } from './verdict_schema.js';

const list = (values: readonly string[]): string => values.map((v) => `'${v}'`).join(', ');

/** The statuses and op states the first schema knew; a migration never changes with the code that follows it. */
const FIRST_TURN_STATUSES = ['ACTIVE', 'SUSPENDED', 'TERMINAL_COMPLETED', 'TERMINAL_FAILED', 'TERMINAL_CANCELLED', 'TERMINAL_REJECTED', 'TERMINAL_EXPIRED'];
const FIRST_OP_STATES = ['PREPARED', 'RUNNING', 'APPLIED', 'DEFINITELY_FAILED', 'OUTCOME_UNKNOWN', 'RECONCILED_APPLIED', 'RECONCILED_FAILED', 'MANUAL_RESOLUTION_REQUIRED'];

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

  CREATE TABLE transcript (
    turn_id TEXT NOT NULL REFERENCES turns (turn_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (turn_id, seq)
  ) WITHOUT ROWID;

  CREATE TABLE checkpoints (
    turn_id TEXT NOT NULL REFERENCES turns (turn_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    transcript_length INTEGER NOT NULL,
    state TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (turn_id, seq)
  ) WITHOUT ROWID;

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
];
