/**
 * Schema version 5 (DESIGN §9.1): turns may be AWAITING_RESOLUTION and remember that their
 * requester is still to be told of a resolution; ops may be RESOLVED_APPLIED or
 * RESOLVED_NOT_APPLIED with who gave the verdict, when, and its text. SQLite cannot change a
 * CHECK constraint in place, so both tables are rebuilt, rows (and the turns' rowids, which order
 * them) copied as they are.
 */
const TURN_STATUSES_V5 = [
  'ACTIVE',
  'SUSPENDED',
  'AWAITING_RESOLUTION',
  'TERMINAL_COMPLETED',
  'TERMINAL_FAILED',
  'TERMINAL_CANCELLED',
  'TERMINAL_REJECTED',
  'TERMINAL_EXPIRED',
];
const OP_STATES_V5 = [
  'PREPARED',
  'RUNNING',
  'APPLIED',
  'DEFINITELY_FAILED',
  'OUTCOME_UNKNOWN',
  'RECONCILED_APPLIED',
  'RECONCILED_FAILED',
  'MANUAL_RESOLUTION_REQUIRED',
  'RESOLVED_APPLIED',
  'RESOLVED_NOT_APPLIED',
];

const list = (values: readonly string[]): string => values.map((v) => `'${v}'`).join(', ');

const TURN_COLUMNS = `turn_id, source, channel_id, message_id, requester_id, message_digest, status, generation, revision, lease_token, lease_expires_at,
  created_at, updated_at, last_progress_at, recovery_deadline_at, suspension_reason, failure_reason, payload_compacted`;
const OP_COLUMNS = `turn_id, step, tool_call_id, tool_name, effect, state, idempotency_key, fingerprint, input, result, result_blob, error, created_at, updated_at`;

export const turnsAndOpsWithVerdicts = `
  CREATE TABLE turns_v5 (
    turn_id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    requester_id TEXT NOT NULL,
    message_digest TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN (${list(TURN_STATUSES_V5)})),
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
    resolution_untold INTEGER NOT NULL DEFAULT 0 CHECK (resolution_untold IN (0, 1)),
    UNIQUE (source, channel_id, message_id)
  );
  INSERT INTO turns_v5 (rowid, ${TURN_COLUMNS}) SELECT rowid, ${TURN_COLUMNS} FROM turns;
  DROP TABLE turns;
  ALTER TABLE turns_v5 RENAME TO turns;
  CREATE INDEX turns_by_status ON turns (status);
  CREATE INDEX turns_by_channel ON turns (source, channel_id, status);

  CREATE TABLE ops_v5 (
    turn_id TEXT NOT NULL REFERENCES turns (turn_id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    tool_call_id TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    effect TEXT NOT NULL CHECK (effect IN ('read', 'idempotent', 'write')),
    state TEXT NOT NULL CHECK (state IN (${list(OP_STATES_V5)})),
    idempotency_key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    input TEXT NOT NULL,
    result TEXT,
    result_blob TEXT,
    error TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    verdict_by TEXT,
    verdict_at INTEGER,
    verdict_text TEXT,
    PRIMARY KEY (turn_id, step, tool_call_id)
  ) WITHOUT ROWID;
  INSERT INTO ops_v5 (${OP_COLUMNS}) SELECT ${OP_COLUMNS} FROM ops;
  DROP TABLE ops;
  ALTER TABLE ops_v5 RENAME TO ops;
  CREATE INDEX ops_by_state ON ops (state);
`;
