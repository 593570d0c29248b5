/**
 * The steps of the SQLite schema that rebuild `turns` and `ops` (versions 5 and 14): SQLite cannot
 * change a CHECK constraint in place, so a step that lets a turn or a call take a new state copies
 * both tables into new ones, rows (and the turns' rowids, which order them) as they are. Like every
 * step, each never changes with the code that follows it (migrations.ts lists them in order).
 */

import { list, OP_STATES_WITH_VERDICTS, TURN_STATUSES_WITH_VERDICTS } from '../shared_tables.js';

const TURN_COLUMNS = `turn_id, source, channel_id, message_id, requester_id, message_digest, status, generation, revision, lease_token, lease_expires_at,
  created_at, updated_at, last_progress_at, recovery_deadline_at, suspension_reason, failure_reason, payload_compacted`;
const OP_COLUMNS = `turn_id, step, tool_call_id, tool_name, effect, state, idempotency_key, fingerprint, input, result, result_blob, error, created_at, updated_at`;

/**
 * Schema version 5 (DESIGN §9.1): turns may be AWAITING_RESOLUTION and remember that their
 * requester is still to be told of a resolution; ops may be RESOLVED_APPLIED or
 * RESOLVED_NOT_APPLIED with who gave the verdict, when, and its text. SQLite cannot change a
 * CHECK constraint in place, so both tables are rebuilt, rows (and the turns' rowids, which order
 * them) copied as they are.
 */
export const turnsAndOpsWithVerdicts = `
  CREATE TABLE turns_v5 (
    turn_id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    requester_id TEXT NOT NULL,
    message_digest TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN (${list(TURN_STATUSES_WITH_VERDICTS)})),
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
    state TEXT NOT NULL CHECK (state IN (${list(OP_STATES_WITH_VERDICTS)})),
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

/**
 * Schema version 14 (DESIGN §9.2): a call may ask a person's approval before it runs. Turns may be
 * AWAITING_APPROVAL; ops may be AWAITING_APPROVAL, APPROVED or DENIED, and keep the request's
 * times, the message that asks it and the answer (who, when, their note), found by the call's
 * stable key (the buttons carry it) and, while they wait, by when they expire. A channel's
 * "always allow here" rules are one row per tool. Both tables are rebuilt, as in version 5.
 */
const TURN_STATUSES_V14 = ['ACTIVE', 'SUSPENDED', 'AWAITING_RESOLUTION', 'AWAITING_APPROVAL', 'TERMINAL_COMPLETED', 'TERMINAL_FAILED', 'TERMINAL_CANCELLED', 'TERMINAL_REJECTED', 'TERMINAL_EXPIRED'];
const OP_STATES_V14 = [...OP_STATES_WITH_VERDICTS, 'AWAITING_APPROVAL', 'APPROVED', 'DENIED'];
const TURN_COLUMNS_V14 = `${TURN_COLUMNS}, resolution_untold, owner_instance`;
const OP_COLUMNS_V14 = `${OP_COLUMNS}, verdict_by, verdict_at, verdict_text`;

export const approvalsBeforeCalls = `
  CREATE TABLE turns_v14 (
    turn_id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    requester_id TEXT NOT NULL,
    message_digest TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN (${list(TURN_STATUSES_V14)})),
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
    owner_instance TEXT,
    UNIQUE (source, channel_id, message_id)
  );
  INSERT INTO turns_v14 (rowid, ${TURN_COLUMNS_V14}) SELECT rowid, ${TURN_COLUMNS_V14} FROM turns;
  DROP TABLE turns;
  ALTER TABLE turns_v14 RENAME TO turns;
  CREATE INDEX turns_by_status ON turns (status);
  CREATE INDEX turns_by_channel ON turns (source, channel_id, status);
  CREATE INDEX turns_resolved_untold ON turns (source, updated_at) WHERE status = 'SUSPENDED' AND resolution_untold = 1;

  CREATE TABLE ops_v14 (
    turn_id TEXT NOT NULL REFERENCES turns (turn_id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    tool_call_id TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    effect TEXT NOT NULL CHECK (effect IN ('read', 'idempotent', 'write')),
    state TEXT NOT NULL CHECK (state IN (${list(OP_STATES_V14)})),
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
    approval_requested_at INTEGER,
    approval_expires_at INTEGER,
    approval_message TEXT,
    approval_verdict TEXT CHECK (approval_verdict IN ('approved', 'denied')),
    approval_by TEXT,
    approval_at INTEGER,
    approval_note TEXT,
    PRIMARY KEY (turn_id, step, tool_call_id)
  ) WITHOUT ROWID;
  INSERT INTO ops_v14 (${OP_COLUMNS_V14}) SELECT ${OP_COLUMNS_V14} FROM ops;
  DROP TABLE ops;
  ALTER TABLE ops_v14 RENAME TO ops;
  CREATE INDEX ops_by_state ON ops (state);
  CREATE INDEX ops_by_idempotency_key ON ops (idempotency_key);
  CREATE INDEX ops_awaiting_approval ON ops (approval_expires_at) WHERE state = 'AWAITING_APPROVAL';

  CREATE TABLE approval_rules (
    source TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    allowed_by TEXT NOT NULL,
    allowed_at INTEGER NOT NULL,
    PRIMARY KEY (source, channel_id, tool_name)
  ) WITHOUT ROWID;
`;
