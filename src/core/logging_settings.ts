import { z } from 'zod';

/** Log levels, most severe first; `silent` logs nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `json`: one JSON object a line; `pretty`: human-readable; `auto`: pretty on a terminal, else JSON. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The `logging` section. */
export const loggingSection = z
  .strictObject({
    level: z.enum(LOG_LEVELS).default('info').describe('The least severe level that is logged.'),
    format: z.enum(LOG_FORMATS).default('auto').describe('`json`: one JSON object a line; `pretty`: human-readable; `auto`: pretty when stderr is a terminal, else JSON.'),
  })
  .describe(
    'Logs go to stderr (the text console on a terminal writes them to data/holdfast.log and shows one line pointing there when a warning or error is logged); stdout belongs to the console adapter.',
  );

/** The validated section, defaults filled in. */
export type LoggingSettings = z.output<typeof loggingSection>;
