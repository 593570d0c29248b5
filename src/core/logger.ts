import { createRequire } from 'node:module';
import { pino, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';
import type { PinoPretty } from 'pino-pretty';
import type { LogFormat, LogLevel } from './logging_settings.js';
import type { Redactor } from './secret_values.js';
import { redactSensitiveKeys } from './sensitive_keys.js';
export type { Logger } from 'pino';

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
  return pretty ? prettyFormatter()({ destination: output.stream, colorize: output.isTTY, sync: true, translateTime: 'SYS:HH:MM:ss.l' }) : output.stream;
}

/** pino-pretty, loaded the first time a line is formatted for people: JSON logs never pay for it. */
function prettyFormatter(): typeof PinoPretty {
  return (createRequire(import.meta.url)('pino-pretty') as { PinoPretty: typeof PinoPretty }).PinoPretty;
}
