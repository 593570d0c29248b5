import { pino } from 'pino';
import type { Logger } from '../../src/core/logger.js';
import { Conditions } from './conditions.js';

/** One line a {@link LogLines} logger wrote, parsed. */
export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** Pino's numbers for the levels the tests look at. */
export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

/** A real pino logger at `level` that keeps every line it writes, parsed, in `lines`. */
export class LogLines {
  readonly lines: LogLine[] = [];
  readonly logger: Logger;
  readonly #conditions = new Conditions();

  constructor(level: 'debug' | 'info' = 'debug') {
    this.logger = pino(
      { level },
      {
        write: (line: string) => {
          this.lines.push(JSON.parse(line) as LogLine);
          this.#conditions.changed();
        },
      },
    );
  }

  /** Resolves with the first line whose message is `msg`, once it has been written. */
  async whenMessage(msg: string): Promise<LogLine> {
    await this.#conditions.when(() => this.withMessage(msg).length > 0);
    return this.withMessage(msg)[0] as LogLine;
  }

  /** The lines whose message is `msg`. */
  withMessage(msg: string): LogLine[] {
    return this.lines.filter((line) => line.msg === msg);
  }
}
