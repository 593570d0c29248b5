import { existsSync, readFileSync } from 'node:fs';
import type { Clock } from '../core/clock.js';
import { EXIT } from './exit_status.js';
import { commandFirst, isOperatorCommand } from './operator/operator_args.js';
import type { Environment } from '../config/interpolate.js';
import type { LogOutput } from '../core/logger.js';
import type { Readable } from 'node:stream';
import { SystemClock } from '../core/system_clock.js';
import { parseCliArgs, USAGE } from './args.js';

export { EXIT };

/** Where the process's shutdown signals come from. */
export interface SignalSource {
  once(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
}

/** What the program reads and writes, so that it runs the same in tests as under `node`. */
export interface CliIo {
  readonly stdin: Readable;
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: LogOutput['stream'] & { readonly isTTY?: boolean };
  readonly env: Environment;
  readonly cwd: string;
  /** The process, for SIGINT and SIGTERM; absent where nothing can signal. */
  readonly signals?: SignalSource;
  /** The clock of the operator commands (ages, verdict times); the system's when absent. */
  readonly clock?: Clock;
}

/**
 * The whole program behind `holdfast`: an operator command, the help, the version, or the bot
 * ({@link runBotProcess}). Each loads the modules it runs when it is chosen, so that `--version`
 * and the operator commands load no transport or database driver they do not use.
 * Returns the exit status; bad arguments are reported on one line with status 2.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const operator = commandFirst(argv);
  if (isOperatorCommand(operator)) {
    const { runOperatorCommand } = await import('./operator/operator_command.js');
    return runOperatorCommand(operator, io, io.clock ?? new SystemClock());
  }
  const parsed = parseCliArgs(argv);
  if (!parsed.ok) {
    io.stderr.write(`holdfast: ${parsed.error}\nTry 'holdfast --help' for the options.\n`);
    return EXIT.usage;
  }
  const { args } = parsed;
  if (args.help) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  if (args.version) {
    io.stdout.write(`holdfast ${packageVersion()}\n`);
    return EXIT.ok;
  }
  const { runBotProcess } = await import('./bot_process.js');
  return runBotProcess(args, io);
}

/** The version in the package's manifest: the nearest package.json above this module, as built (dist/) or as the sources are run (src/app/). */
function packageVersion(): string {
  for (let folder = new URL('./', import.meta.url); ; folder = new URL('../', folder)) {
    const path = new URL('package.json', folder);
    if (existsSync(path)) return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
    if (folder.pathname === '/') throw new Error(`no package.json above ${import.meta.url}`);
  }
}
