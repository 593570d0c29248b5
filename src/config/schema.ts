import { z } from 'zod';
import { LOG_FORMATS, LOG_LEVELS } from '../core/logger.js';

/** A string in which an empty value means "not set", so `${VAR:-}` can switch a feature off. */
const optionalSecret = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

const loggingSchema = z
  .strictObject({
    level: z.enum(LOG_LEVELS).default('info').describe('The least severe level that is logged.'),
    format: z
      .enum(LOG_FORMATS)
      .default('auto')
      .describe('`json`: one JSON object a line; `pretty`: human-readable; `auto`: pretty when stderr is a terminal, else JSON.'),
  })
  .describe('Logs go to stderr; stdout belongs to the console adapter.');

const discordSchema = z
  .strictObject({
    token: optionalSecret.describe(
      'The bot token, usually `${DISCORD_TOKEN}`. When it is absent or empty the bot runs in the terminal instead.',
    ),
  })
  .describe('The Discord adapter.');

const turnStateSchema = z
  .strictObject({
    db_path: z
      .string()
      .min(1)
      .default('data/turn_state/turns.sqlite3')
      .describe('The SQLite file that holds turns, transcripts and the tool-call ledger; relative to the working directory.'),
  })
  .describe('The durable turn store.');

/** The whole configuration. An empty file is valid: every field has a default or is optional. */
export const configSchema = z
  .strictObject({
    logging: loggingSchema.prefault({}),
    discord: discordSchema.prefault({}),
    turn_state: turnStateSchema.prefault({}),
  })
  .describe('Holdfast configuration');

/** The validated configuration, with every default filled in. */
export type Config = z.output<typeof configSchema>;
