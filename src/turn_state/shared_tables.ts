/**
 * What the two databases' migrations write alike, written once for both in each one's column
 * types: the tables both first schemas hold the same, the tables added since, and the
 * vocabularies a step's CHECK constraints name. A migration never changes with the code that
 * follows it: a later change to one of these is a step of its own.
 */

/** Values as the list of an SQL `IN (…)`. */
export const list = (values: readonly string[]): string => values.map((v) => `'${v}'`).join(', ');

/**
 * The turn statuses once a turn could wait for an operator's verdict (DESIGN §9.1) — SQLite's
 * version 5, PostgreSQL's 1.
 */
export const TURN_STATUSES_WITH_VERDICTS: readonly string[] = [
  'ACTIVE',
  'SUSPENDED',
  'AWAITING_RESOLUTION',
  'TERMINAL_COMPLETED',
  'TERMINAL_FAILED',
  'TERMINAL_CANCELLED',
  'TERMINAL_REJECTED',
  'TERMINAL_EXPIRED',
];

/** The call states once an operator could give a verdict on a call (DESIGN §9.1) — SQLite's version 5, PostgreSQL's 1. */
export const OP_STATES_WITH_VERDICTS: readonly string[] = [
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

/** How one database names the column types of the shared tables. */
export interface ColumnTypes {
  readonly integer: string;
  readonly real: string;
  /** A numbered key that is never reused. */
  readonly identity: string;
  /** What a table keyed by its primary key alone is declared with (SQLite's `WITHOUT ROWID`). */
  readonly keyedOnly: string;
}

/**
 * A turn's transcript and its checkpoints, as both first schemas wrote them (SQLite's version 1,
 * PostgreSQL's 1): the messages in order, and after each step how long the transcript was and the
 * loop's state.
 */
export function transcriptTables(types: ColumnTypes): string {
  return `CREATE TABLE transcript (
    turn_id TEXT NOT NULL REFERENCES turns (turn_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (turn_id, seq)
  )${types.keyedOnly};

  CREATE TABLE checkpoints (
    turn_id TEXT NOT NULL REFERENCES turns (turn_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    transcript_length INTEGER NOT NULL,
    state TEXT NOT NULL,
    created_at ${types.integer} NOT NULL,
    PRIMARY KEY (turn_id, seq)
  )${types.keyedOnly};`;
}

/**
 * The `traceparent` of each traced run of a turn (DESIGN §10.3) — SQLite's version 17,
 * PostgreSQL's 9: space-separated, oldest first, empty (NULL) while nothing is traced.
 */
export const turnTracesColumn = `
  ALTER TABLE turns ADD COLUMN traces TEXT;
  `;

/**
 * The usage tables (DESIGN §10.1) — SQLite's version 15, PostgreSQL's 7: each message counted
 * against its owner or refused by a limit (`usage_turns`), each model call's tokens and cost
 * (`usage_calls`), and the totals of each UTC day, owner and model (`usage_days`).
 */
export function usageTables(types: ColumnTypes): string {
  return `
  CREATE TABLE usage_turns (
    source TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    server_id TEXT NOT NULL,
    counted_at ${types.integer} NOT NULL,
    refused_scope TEXT CHECK (refused_scope IN ('user', 'channel', 'server')),
    refused_kind TEXT CHECK (refused_kind IN ('turns_per_hour', 'tokens_per_day')),
    refused_max ${types.integer},
    refused_used ${types.integer},
    resets_at ${types.integer},
    PRIMARY KEY (source, channel_id, message_id)
  );
  CREATE INDEX usage_turns_by_user ON usage_turns (source, user_id, counted_at);
  CREATE INDEX usage_turns_by_channel ON usage_turns (source, channel_id, counted_at);
  CREATE INDEX usage_turns_by_server ON usage_turns (source, server_id, counted_at);
  CREATE INDEX usage_turns_by_time ON usage_turns (counted_at);
  CREATE TABLE usage_calls (
    id ${types.identity},
    source TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    server_id TEXT NOT NULL,
    called_at ${types.integer} NOT NULL,
    model TEXT NOT NULL,
    input_tokens ${types.integer},
    output_tokens ${types.integer},
    cached_input_tokens ${types.integer},
    reasoning_tokens ${types.integer},
    cost ${types.real}
  );
  CREATE INDEX usage_calls_by_turn ON usage_calls (source, channel_id, message_id);
  CREATE INDEX usage_calls_by_user ON usage_calls (source, user_id, called_at);
  CREATE INDEX usage_calls_by_channel ON usage_calls (source, channel_id, called_at);
  CREATE INDEX usage_calls_by_server ON usage_calls (source, server_id, called_at);
  CREATE INDEX usage_calls_by_time ON usage_calls (called_at);
  CREATE TABLE usage_days (
    day TEXT NOT NULL,
    source TEXT NOT NULL,
    user_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    server_id TEXT NOT NULL,
    model TEXT NOT NULL,
    turns ${types.integer} NOT NULL,
    refusals ${types.integer} NOT NULL,
    calls ${types.integer} NOT NULL,
    unknown_calls ${types.integer} NOT NULL,
    input_tokens ${types.integer} NOT NULL,
    cached_input_tokens ${types.integer} NOT NULL,
    output_tokens ${types.integer} NOT NULL,
    reasoning_tokens ${types.integer} NOT NULL,
    cost ${types.real},
    PRIMARY KEY (day, source, user_id, channel_id, server_id, model)
  )${types.keyedOnly};
  `;
}

/**
 * The ledger's moves (DESIGN §6) — SQLite's version 16, PostgreSQL's 8: one row for each state a
 * call entered (a call never enters a state twice), when, and who moved it (`NULL`: the bot
 * itself), kept beside the call's own rows by its key. The calls recorded before it get two:
 * PREPARED when they were recorded, and the state they were in, when they entered it.
 */
export function opMovesTable(types: ColumnTypes): string {
  return `
  CREATE TABLE op_moves (
    turn_id TEXT NOT NULL,
    step ${types.integer} NOT NULL,
    tool_call_id TEXT NOT NULL,
    state TEXT NOT NULL,
    moved_at ${types.integer} NOT NULL,
    moved_by TEXT,
    PRIMARY KEY (turn_id, step, tool_call_id, state)
  )${types.keyedOnly};
  INSERT INTO op_moves (turn_id, step, tool_call_id, state, moved_at, moved_by)
    SELECT turn_id, step, tool_call_id, 'PREPARED', created_at, NULL FROM ops;
  INSERT INTO op_moves (turn_id, step, tool_call_id, state, moved_at, moved_by)
    SELECT turn_id, step, tool_call_id, state, updated_at, COALESCE(verdict_by, approval_by) FROM ops WHERE state <> 'PREPARED';
  `;
}
