import { z } from 'zod';
import { seconds } from '../config/schema_parts.js';

/** The `turn_state` section. */
export const turnStateSection = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe('Keep turns, conversation history and memory notes in the store file. Off, the bot still answers, but an interrupted reply is lost and history and notes last only until the bot stops.'),
    db_path: z
      .string()
      .min(1)
      .default('data/turn_state/turns.sqlite3')
      .describe(
        'The one SQLite file that holds everything the bot keeps: turns, transcripts, the tool-call ledger, replies, conversation history and memory notes; relative to the working directory. Blobs live in a folder beside it.',
      ),
    lease_ttl_seconds: seconds('How long a turn owner’s lease lasts without a heartbeat (heartbeats come every third of it)', 30),
    housekeeping_interval_seconds: seconds('How often the expired-lease and retention sweeps run', 300),
    auto_resume: z.boolean().default(true).describe('Continue a turn suspended by an overload by itself once the model’s breaker lets a probe through (not across restarts).'),
    resume_ttl_hours: z.number().positive().default(24).describe('How long a suspended turn stays resumable after its last real progress, in hours.'),
    payload_retention_days: z.number().positive().default(7).describe('How long a turn’s transcript and tool results are kept for diagnosis, in days; then only its identity and ledger remain.'),
    ledger_retention_days: z
      .number()
      .positive()
      .default(90)
      .describe('How long ledger rows are kept, in days. Calls whose outcome is unknown or awaits manual resolution are never deleted automatically.'),
  })
  .describe('The store: one file for everything the bot keeps.');

/** The validated section, defaults filled in. */
export type TurnStateSettings = z.output<typeof turnStateSection>;
