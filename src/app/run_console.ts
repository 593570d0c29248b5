import type { Readable } from 'node:stream';
import type { FaultInjector } from '../engine/fault_points.js';
import { consoleMessageSource } from '../conversation/resume.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { readConsoleLines } from '../console/console_adapter.js';
import { jsonLinesSink, textSink, type ConsoleOutput } from '../console/console_sink.js';
import { intakeFor, type BotServices } from './bot_services.js';
import { keepHouse } from './housekeeping.js';
import { catchUpAfterRestart } from './restart_catch_up.js';

/** Where the process's shutdown signals come from. */
export interface SignalSource {
  once(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
}

export interface ConsoleRun {
  readonly config: Config;
  readonly services: BotServices;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly mode: 'text' | 'jsonl';
  readonly input: Readable;
  readonly output: ConsoleOutput;
  readonly signals: SignalSource | undefined;
  readonly faults: FaultInjector;
}

/**
 * Runs the bot in the terminal until its input ends (then the running and queued turns finish or
 * suspend) or SIGINT/SIGTERM arrives (then intake stops and running turns are suspended with
 * reason `shutdown`, their work kept). Housekeeping sweeps run meanwhile.
 */
export async function runConsole(run: ConsoleRun): Promise<void> {
  const { config, services, clock, logger } = run;
  const sink = run.mode === 'jsonl' ? jsonLinesSink(run.output) : textSink(run.output);
  const intake = intakeFor(config, services, { clock, logger, sink, source: consoleMessageSource, faults: run.faults });
  const stopHousekeeping = new AbortController();
  const housekeeping = keepHouse(services, clock, config.turn_state.housekeeping_interval_seconds * 1000, stopHousekeeping.signal);
  const shutdown = new Promise<'signal'>((resolve) => {
    run.signals?.once('SIGINT', () => resolve('signal'));
    run.signals?.once('SIGTERM', () => resolve('signal'));
  });
  sink.ready();
  const caughtUp = catchUpAfterRestart(services, sink, 'console', logger);
  const ended = await Promise.race([readConsoleLines(run.input, clock, (message) => intake.submit(message)).then(() => 'eof' as const), shutdown]);
  if (ended === 'signal') {
    logger.info('shutting down: running turns are suspended with their work kept');
    run.input.destroy();
    await intake.shutdown();
  } else {
    await intake.idle();
    await intake.close();
  }
  stopHousekeeping.abort();
  await Promise.all([housekeeping, caughtUp]);
}
