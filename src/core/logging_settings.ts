import { z } from 'zod';
import { LOG_FORMATS, LOG_LEVELS } from './logger.js';

/** The `logging` section. */
export const loggingSection = z
  .strictObject({
    level: z.enum(LOG_LEVELS).default('info').describe('The least severe level that is logged.'),
    format: z.enum(LOG_FORMATS).default('auto').describe('`json`: one JSON object a line; `pretty`: human-readable; `auto`: pretty when stderr is a terminal, else JSON.'),
  })
  .describe('Logs go to stderr (the text console on a terminal writes them to data/holdfast.log and shows WARN and above on stderr); stdout belongs to the console adapter.');

/** The validated section, defaults filled in. */
export type LoggingSettings = z.output<typeof loggingSection>;
