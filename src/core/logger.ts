import { pino, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';
import type { Redactor } from './secret_values.js';
import { redactSensitiveKeys } from './sensitive_keys.js';
import { z } from 'zod';
export type { Logger } from 'pino';

/** Log levels, most severe first; `silent` logs nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `json`: one JSON object a line; `pretty`: human-readable; `auto`: pretty on a terminal, else JSON. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LoggerOptions {
  readonly level: LogLevel;
  readonly format: LogFormat;
}

/** Where log lines go. The program passes stderr: stdout belongs to the console adapter. */
export interface LogOutput {
  readonly stream: DestinationStream;
  readonly isTTY: boolean;
  /** The least severe level written here, when it is more severe than the logger's own. */
  readonly minLevel?: Exclude<LogLevel, 'silent'>;
}

/**
 * The program's logger: pino, JSON lines unless `format` (or a terminal, under `auto`) asks for
 * human-readable output, with the value of every sensitive key redacted at any depth and every
 * other string passed through `redactor` (the configured secrets, wherever they appear in it).
 * Given several outputs, each line goes to every output that takes its level, each formatted for
 * its own output.
 */
export function createLogger(options: LoggerOptions, output: LogOutput | readonly LogOutput[], redactor: Redactor): Logger {
  const outputs: readonly LogOutput[] = 'stream' in output ? [output] : output;
  const destinations = outputs.map((one) => ({ level: one.minLevel ?? 'trace', stream: formatted(options.format, one) }));
  const [only] = destinations;
  return pino(
    {
      level: options.level,
      timestamp: stdTimeFunctions.isoTime,
      // The finished line is redacted, so child bindings and serialized errors are covered too.
      hooks: { streamWrite: (line) => `${JSON.stringify(redactSensitiveKeys(JSON.parse(line, rounded), (text) => redactor.redact(text)))}\n` },
    },
    destinations.length === 1 && only !== undefined && only.level === 'trace' ? only.stream : pino.multistream(destinations),
  );
}

/** Significant digits a fraction keeps in a log line: a duration of `1580.0017500000104` ms is logged as `1580`. */
const LOGGED_DIGITS = 6;

/** A JSON reviver: every number that is not whole, to {@link LOGGED_DIGITS} significant digits. */
function rounded(_key: string, value: unknown): unknown {
  return typeof value === 'number' && !Number.isInteger(value) ? Number(value.toPrecision(LOGGED_DIGITS)) : value;
}

/** `output`'s stream, human-readable when `format` (or a terminal, under `auto`) asks for it. */
function formatted(format: LogFormat, output: LogOutput): DestinationStream {
  const pretty = format === 'pretty' || (format === 'auto' && output.isTTY);
  return pretty ? PinoPretty({ destination: output.stream, colorize: output.isTTY, sync: true, translateTime: 'SYS:HH:MM:ss.l' }) : output.stream;
}

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
