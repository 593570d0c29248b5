import type pg from 'pg';
import { SCHEMA_NAME } from '../turn_state_settings.js';
import { list, opMovesTable, OP_STATES_WITH_VERDICTS, transcriptTables, TURN_STATUSES_WITH_VERDICTS, turnTracesColumn, usageTables, type ColumnTypes } from '../shared_tables.js';

/** This database's column types, for the tables written once for both. */
const POSTGRES_COLUMNS: ColumnTypes = { integer: 'BIGINT', real: 'DOUBLE PRECISION', identity: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY', keyedOnly: '' };

/** The vocabularies the first PostgreSQL schema knew beyond the shared ones; a migration never changes with the code that follows it. */
const FIRST_EFFECT_CLASSES = ['read', 'idempotent', 'write'];
const FIRST_REPLY_STATES = ['pending', 'delivered', 'abandoned'];
const FIRST_MEMORY_SCOPES = ['user', 'channel'];

/**
 * The PostgreSQL schema, one entry per version, each applied in its own transaction. Version 1
 * holds what SQLite's seven versions built, in PostgreSQL's terms, and what sharing the store
 * needs: `now_ms()`, the database's clock every lease is judged by (DESIGN §7.7); the owner
 * process of each lease and the registry of processes; blobs as rows instead of files; and an
 * admission order (`admitted`) where SQLite has its rowid. Version 2 is SQLite's version 8: a
 * pending reply keeps the model that wrote it. Version 3 is SQLite's version 11: the turns whose
 * requester is still to be told of a verdict are indexed apart. Version 4 is SQLite's version 12:
 * a history entry keeps its author's name. Version 5 is SQLite's version 13: the model an admin
 * chose for a channel with /model. Version 6 is SQLite's version 14: approval before a call.
 * Version 7 is SQLite's version 15: usage and limits, from the same text as SQLite's; version 8 is
 * SQLite's version 16: the ledger's moves, likewise.
 */
export const PG_MIGRATIONS: readonly string[] = [
  `
  CREATE FUNCTION now_ms() RETURNS BIGINT LANGUAGE sql VOLATILE
    AS $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT $$;

  CREATE TABLE instances (
    instance_id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    shards TEXT,
    started_at BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL,
    stopped_at BIGINT
  );

  CREATE TABLE turns (
    turn_id TEXT PRIMARY KEY,
    admitted BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    source TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    requester_id TEXT NOT NULL,
    message_digest TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN (${list(TURN_STATUSES_WITH_VERDICTS)})),
    generation INTEGER NOT NULL,
    revision INTEGER NOT NULL,
    lease_token TEXT,
    lease_expires_at BIGINT,
    owner_instance TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    last_progress_at BIGINT NOT NULL,
    recovery_deadline_at BIGINT,
    suspension_reason TEXT,
    failure_reason TEXT,
    payload_compacted SMALLINT NOT NULL DEFAULT 0 CHECK (payload_compacted IN (0, 1)),
    resolution_untold SMALLINT NOT NULL DEFAULT 0 CHECK (resolution_untold IN (0, 1)),
    UNIQUE (source, channel_id, message_id)
  );
  CREATE INDEX turns_by_status ON turns (status);
  CREATE INDEX turns_by_channel ON turns (source, channel_id, status);

  ${transcriptTables(POSTGRES_COLUMNS)}

  CREATE TABLE ops (
    turn_id TEXT NOT NULL REFERENCES turns (turn_id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    tool_call_id TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    effect TEXT NOT NULL CHECK (effect IN (${list(FIRST_EFFECT_CLASSES)})),
    state TEXT NOT NULL CHECK (state IN (${list(OP_STATES_WITH_VERDICTS)})),
    idempotency_key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    input TEXT NOT NULL,
    result TEXT,
    result_blob TEXT,
    error TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    verdict_by TEXT,
    verdict_at BIGINT,
    verdict_text TEXT,
    PRIMARY KEY (turn_id, step, tool_call_id)
  );
  CREATE INDEX ops_by_state ON ops (state);

  CREATE TABLE blobs (
    digest TEXT PRIMARY KEY CHECK (digest ~ '^[0-9a-f]{64}$'),
    bytes BYTEA NOT NULL
  );

  CREATE TABLE blob_refs (
    turn_id TEXT NOT NULL REFERENCES turns (turn_id) ON DELETE CASCADE,
    digest TEXT NOT NULL REFERENCES blobs (digest),
    owner TEXT NOT NULL CHECK (owner IN ('transcript', 'op')),
    PRIMARY KEY (turn_id, digest, owner)
  );
  CREATE INDEX blob_refs_by_digest ON blob_refs (digest);

  CREATE TABLE replies (
    turn_id TEXT PRIMARY KEY REFERENCES turns (turn_id) ON DELETE CASCADE,
    state TEXT NOT NULL CHECK (state IN (${list(FIRST_REPLY_STATES)})),
    text TEXT,
    parts_delivered INTEGER NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    delivered_at BIGINT,
    failure TEXT
  );
  CREATE INDEX replies_pending ON replies (state) WHERE state = 'pending';

  CREATE TABLE inbox (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    message TEXT NOT NULL,
    accepted_at BIGINT NOT NULL,
    UNIQUE (source, channel_id, message_id)
  );

  CREATE TABLE history_channels (
    channel TEXT PRIMARY KEY,
    revision INTEGER NOT NULL CHECK (revision > 0)
  );
  CREATE TABLE history_entries (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel TEXT NOT NULL REFERENCES history_channels (channel),
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'summary')),
    text TEXT NOT NULL,
    author_id TEXT,
    message_id TEXT,
    attachments TEXT,
    created_at BIGINT NOT NULL
  );
  CREATE INDEX history_entries_by_channel ON history_entries (channel, id);
  CREATE UNIQUE INDEX history_one_summary_per_channel ON history_entries (channel) WHERE role = 'summary';
  CREATE INDEX history_entries_by_message ON history_entries (channel, message_id) WHERE message_id IS NOT NULL;
  CREATE TABLE history_blob_refs (
    entry_id BIGINT NOT NULL REFERENCES history_entries (id) ON DELETE CASCADE,
    digest TEXT NOT NULL REFERENCES blobs (digest),
    PRIMARY KEY (entry_id, digest)
  );
  CREATE INDEX history_blob_refs_by_digest ON history_blob_refs (digest);

  CREATE TABLE memory_notes (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    idempotency_key TEXT NOT NULL UNIQUE,
    scope TEXT NOT NULL CHECK (scope IN (${list(FIRST_MEMORY_SCOPES)})),
    owner_id TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );
  CREATE INDEX memory_notes_by_owner ON memory_notes (scope, owner_id, id);
  `,
  `
  ALTER TABLE replies ADD COLUMN written_by_model TEXT;
  ALTER TABLE replies ADD COLUMN written_by_fallback SMALLINT NOT NULL DEFAULT 0 CHECK (written_by_fallback IN (0, 1));
  `,
  `
  CREATE INDEX turns_resolved_untold ON turns (source, updated_at) WHERE status = 'SUSPENDED' AND resolution_untold = 1;
  `,
  // Version 4 is SQLite's version 12 (DESIGN §4.2): a history entry keeps how the transport named its author when the message was said.
  `
  ALTER TABLE history_entries ADD COLUMN author_name TEXT;
  `,
  // Version 5 is SQLite's version 13 (DESIGN §5.4): the model an admin chose for a channel with /model.
  `
  CREATE TABLE channel_models (
    channel TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    chosen_by TEXT NOT NULL,
    chosen_at BIGINT NOT NULL
  );
  `,
  // Version 6 is SQLite's version 14 (DESIGN §9.2): calls that ask a person's approval before they run, and the channels' "always allow here" rules.
  `
  ALTER TABLE turns DROP CONSTRAINT turns_status_check;
  ALTER TABLE turns ADD CONSTRAINT turns_status_check CHECK (status IN (${list([...TURN_STATUSES_WITH_VERDICTS, 'AWAITING_APPROVAL'])}));
  ALTER TABLE ops DROP CONSTRAINT ops_state_check;
  ALTER TABLE ops ADD CONSTRAINT ops_state_check CHECK (state IN (${list([...OP_STATES_WITH_VERDICTS, 'AWAITING_APPROVAL', 'APPROVED', 'DENIED'])}));
  ALTER TABLE ops ADD COLUMN approval_requested_at BIGINT;
  ALTER TABLE ops ADD COLUMN approval_expires_at BIGINT;
  ALTER TABLE ops ADD COLUMN approval_message TEXT;
  ALTER TABLE ops ADD COLUMN approval_verdict TEXT CHECK (approval_verdict IN ('approved', 'denied'));
  ALTER TABLE ops ADD COLUMN approval_by TEXT;
  ALTER TABLE ops ADD COLUMN approval_at BIGINT;
  ALTER TABLE ops ADD COLUMN approval_note TEXT;
  CREATE INDEX ops_by_idempotency_key ON ops (idempotency_key);
  CREATE INDEX ops_awaiting_approval ON ops (approval_expires_at) WHERE state = 'AWAITING_APPROVAL';
  CREATE TABLE approval_rules (
    source TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    allowed_by TEXT NOT NULL,
    allowed_at BIGINT NOT NULL,
    PRIMARY KEY (source, channel_id, tool_name)
  );
  `,
  // Version 7 is SQLite's version 15 (DESIGN §10.1): each turn counted against its owner, or refused by a limit; each model call's tokens and cost; the totals of each day.
  usageTables(POSTGRES_COLUMNS),
  // Version 8 is SQLite's version 16 (DESIGN §6): each state a call of the ledger entered, when, and who moved it.
  opMovesTable(POSTGRES_COLUMNS),
  // Version 9 is SQLite's version 17 (DESIGN §10.3): the traces of a turn's runs.
  turnTracesColumn,
];

/** The advisory lock every process takes around the migrations of one schema. */
const lockKey = (schema: string): string => `holdfast:${schema}`;

/**
 * Brings `schema` to the newest of `migrations`, creating it if missing: each version in its own
 * transaction, all under a session advisory lock, so that processes starting together run each
 * step once and the others wait and find it done. The version is kept in `schema_version`.
 * @throws when the schema was written by a newer version of this program, or a step fails
 *   (that step is rolled back; earlier ones stay).
 */
export async function migratePg(pool: pg.Pool, schema: string, migrations: readonly string[]): Promise<void> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`"${schema}" is not a schema name the store can use`);
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey(schema)]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
      const current = await versionOf(client);
      if (current > migrations.length) throw new Error(`the PostgreSQL store (schema ${schema}) is at version ${current}, newer than this program's ${migrations.length}`);
      for (let version = current + 1; version <= migrations.length; version += 1) {
        await client.query('BEGIN');
        try {
          await client.query(migrations[version - 1] ?? '');
          await client.query('DELETE FROM schema_version');
          await client.query('INSERT INTO schema_version (version) VALUES ($1)', [version]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey(schema)]);
    }
  } finally {
    client.release();
  }
}

async function versionOf(client: pg.PoolClient): Promise<number> {
  const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_version');
  return rows[0]?.version ?? 0;
}
