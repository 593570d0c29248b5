import { z } from 'zod';
import { seconds } from '../config/schema_parts.js';

/** Where the store lives: one SQLite file (the embedded default) or a PostgreSQL database several processes share. */
export const STORE_BACKENDS = ['sqlite', 'postgres'] as const;
export type StoreBackend = (typeof STORE_BACKENDS)[number];

/** The names `turn_state.postgres.schema` allows: safe to write into a statement unquoted. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The `turn_state.postgres` section: how to reach the shared database. */
export const postgresSection = z
  .strictObject({
    url: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'a PostgreSQL URL starts with postgres:// or postgresql://')
      .refine((url) => URL.canParse(url), 'not a URL that can be read: check its host and percent-encoding')
      .describe('The connection URL, `postgres://user:password@host:5432/database`; usually `${DATABASE_URL}`. Its password is redacted like every secret.'),
    pool_size: z.number().int().min(2).max(100).default(10).describe('Connections each process keeps open at most.'),
    schema: z
      .string()
      .regex(SCHEMA_NAME, 'a schema name is lower-case letters, digits and underscores, not starting with a digit')
      .default('holdfast')
      .describe('The schema the store keeps its tables in; created if missing. Processes that make one bot name the same schema.'),
  })
  .describe('The PostgreSQL store, used when `backend` is `postgres`.');

/** The `turn_state` section. */
export const turnStateSection = z
  .strictObject({
    backend: z.enum(STORE_BACKENDS).default('sqlite').describe('`sqlite`: one file, one bot process. `postgres`: a shared database, for several bot processes (Discord shards) on one or more hosts.'),
    postgres: postgresSection.optional(),
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Keep turns, conversation history and memory notes in the store file. Off, the bot still answers, but an interrupted reply is lost and history and notes last only until the bot stops.',
      ),
    db_path: z
      .string()
      .min(1)
      .default('data/turn_state/turns.sqlite3')
      .describe(
        'The one SQLite file that holds everything the bot keeps: turns, transcripts, the tool-call ledger, replies, ' +
          'conversation history and memory notes; relative to the configuration file’s folder (the current folder without a file). Blobs live in a folder beside it.',
      ),
    lease_ttl_seconds: seconds('How long a turn owner’s lease lasts without a heartbeat (heartbeats come every third of it)', 30),
    housekeeping_interval_seconds: seconds('How often the expired-lease and retention sweeps run', 300),
    auto_resume: z.boolean().default(true).describe('Continue a turn suspended by an overload by itself once the model’s breaker lets a probe through (not across restarts).'),
    continue_after_restart: z
      .boolean()
      .default(true)
      .describe(
        'Continue a turn interrupted by a restart (SIGTERM or a crash) by itself once the bot is back, as a typed `resume` would; ' +
          'a turn with an uncertain write still waits for an operator. `false`: its requester types `resume`.',
      ),
    resume_ttl_hours: z.number().positive().default(24).describe('How long a suspended turn stays resumable after its last real progress, in hours.'),
    payload_retention_days: z.number().positive().default(7).describe('How long a turn’s transcript and tool results are kept for diagnosis, in days; then only its identity and ledger remain.'),
    ledger_retention_days: z
      .number()
      .positive()
      .default(90)
      .describe('How long ledger rows are kept, in days. Calls whose outcome is unknown or awaits manual resolution are never deleted automatically.'),
    usage_retention_days: z
      .number()
      .positive()
      .default(400)
      .describe('How long the daily usage totals (`/usage`, `holdfast usage`) are kept, in days; the detailed rows behind them go with the turns’ payload, after `payload_retention_days`.'),
  })
  .refine((section) => section.backend !== 'postgres' || section.postgres !== undefined, {
    message: 'backend postgres needs turn_state.postgres with its url',
    path: ['postgres'],
  })
  .describe('The store: one file (or one PostgreSQL database) for everything the bot keeps.');

/** The validated section, defaults filled in. */
export type TurnStateSettings = z.output<typeof turnStateSection>;
