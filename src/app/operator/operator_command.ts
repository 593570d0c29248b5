import type { Environment } from '../../config/interpolate.js';
import type { LoadedConfig } from '../../config/load.js';
import { formatConfigProblem, isConfigError } from '../../config/problems.js';
import { assertNever } from '../../core/assert_never.js';
import type { Clock } from '../../core/clock.js';
import { createLogger, type Logger, type LogOutput } from '../../core/logger.js';
import { isTurnStateUnavailable } from '../../turn_state/errors.js';
import { loadConfig, type Config } from '../config_schema.js';
import { configuredSecrets, logRedactor } from '../config_secrets.js';
import { EXIT, type ExitStatus } from '../exit_status.js';
import { parseOperatorArgs, type OperatorCommand } from './operator_args.js';
import type { OperatorContext } from './operator_context.js';
import type { StoreAccess } from '../../turn_state/opened_store.js';
import { openStore } from '../../turn_state/open_store.js';
import { RandomIds } from '../../core/ids.js';
import { TOPIC_COMMAND } from './operator_usage.js';
import { storeLeftBehind } from '../store_left_behind.js';
import type { SignalSource } from '../run.js';

/**
 * The sections of the configuration the operator commands use: a variable only the bot's other
 * sections read (the Discord token, an API key, a tool's header) need not be set to run them.
 */
const OPERATOR_SECTIONS: ReadonlySet<string> = new Set(['turn_state', 'logging']);

/** The sections `holdfast web` uses: the operator commands' and `web`, whose token only it needs. */
const WEB_SECTIONS: ReadonlySet<string> = new Set([...OPERATOR_SECTIONS, 'web']);

/** What an operator command reads and writes. */
export interface OperatorIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: LogOutput['stream'] & { readonly isTTY?: boolean };
  readonly env: Environment;
  readonly cwd: string;
  /** The process, for SIGINT and SIGTERM, which stop `holdfast web`. */
  readonly signals?: SignalSource;
}

/**
 * `holdfast turns …`, `holdfast usage`, `holdfast doctor`, `holdfast backup` and `holdfast web`: parses the command, loads the
 * configuration, opens the store beside the running bot (no lock, no sweep) and runs the command;
 * `holdfast migrate` opens the store its own way. Each command's module is loaded when it runs.
 * Returns the exit status: bad arguments, bad configuration and a store that is off or does not
 * exist are status 2, one problem a line.
 */
export async function runOperatorCommand(argv: readonly string[], io: OperatorIo, clock: Clock): Promise<ExitStatus> {
  const parsed = parseOperatorArgs(argv);
  switch (parsed.kind) {
    case 'help':
      io.stdout.write(parsed.text);
      return EXIT.ok;
    case 'error':
      io.stderr.write(`holdfast: ${parsed.error}\nTry '${TOPIC_COMMAND[parsed.topic]} --help' for the options.\n`);
      return EXIT.usage;
    case 'command':
      break;
    default:
      return assertNever(parsed);
  }
  const { command } = parsed;
  let loaded: LoadedConfig<Config>;
  try {
    loaded = loadConfig({ configPath: command.configPath, env: io.env, cwd: io.cwd, sections: command.kind === 'web' ? WEB_SECTIONS : OPERATOR_SECTIONS });
  } catch (error) {
    if (!isConfigError(error)) throw error;
    for (const problem of error.problems) io.stderr.write(`holdfast: ${formatConfigProblem(problem)}\n`);
    return EXIT.usage;
  }
  const leftBehind = storeLeftBehind(loaded, io.cwd, command.kind === 'migrate' ? 'migrate' : 'store');
  if (leftBehind !== undefined) {
    io.stderr.write(`holdfast: ${leftBehind}\n`);
    return EXIT.usage;
  }
  const secrets = configuredSecrets(loaded);
  const logger = createLogger(loaded.config.logging, { stream: io.stderr, isTTY: io.stderr.isTTY === true }, logRedactor(secrets));
  if (command.kind === 'migrate') {
    const out = (text: string): unknown => io.stdout.write(text);
    const err = (text: string): unknown => io.stderr.write(text);
    const { migrateToPostgres } = await import('./migrate_to_postgres.js');
    return migrateToPostgres({ config: loaded.config, baseDir: loaded.baseDir, clock, logger, redact: (text) => secrets.redact(text), out, err });
  }
  const store = await openStore(loaded.config.turn_state, { mode: 'operator', cwd: loaded.baseDir, clock, ids: new RandomIds(), logger, secrets });
  try {
    if (command.kind === 'doctor') {
      const { doctor } = await import('./doctor.js');
      return await doctor({ config: loaded.config, source: loaded.source, excused: loaded.excused, store }, command.json, (text) => io.stdout.write(text));
    }
    return await onStore(command, store, io, { config: loaded.config, clock, logger });
  } catch (error) {
    if (!isTurnStateUnavailable(error)) throw error;
    io.stderr.write(`holdfast: ${error.message}\n`);
    return EXIT.failure;
  } finally {
    if (store.kind === 'opened') await store.close();
  }
}

/** What a command on the store runs with besides it. */
interface StoreCommandDeps {
  readonly config: Config;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** A command that needs the store, its module loaded now: refused with status 2 when there is none, 1 when it cannot be used. */
async function onStore(command: Exclude<OperatorCommand, { kind: 'doctor' | 'migrate' }>, store: StoreAccess, io: OperatorIo, deps: StoreCommandDeps): Promise<ExitStatus> {
  const fail = (status: ExitStatus, message: string): Promise<ExitStatus> => {
    io.stderr.write(`holdfast: ${message}\n`);
    return Promise.resolve(status);
  };
  switch (store.kind) {
    case 'disabled':
      return fail(EXIT.usage, 'turn_state.enabled is false in the configuration: there is no store');
    case 'missing':
      return fail(EXIT.usage, `the store ${store.path} does not exist (the bot creates it at its first start; is this the bot's configuration?)`);
    case 'unusable':
      return fail(EXIT.failure, `the store ${store.path} cannot be used: ${store.cause}`);
    case 'opened':
      break;
    default:
      return assertNever(store);
  }
  const context: OperatorContext = { operator: store.operator, now: deps.clock.now(), out: (text) => io.stdout.write(text), err: (text) => io.stderr.write(text) };
  switch (command.kind) {
    case 'turns_list':
      return (await import('./turns_list.js')).turnsList(context, command);
    case 'turns_show':
      return (await import('./turns_show.js')).turnsShow(context, command);
    case 'turns_resolve':
      return (await import('./turns_resolve.js')).turnsResolve(context, command);
    case 'turns_approval':
      return (await import('./turns_approval.js')).turnsApproval(context, command);
    case 'usage':
      return (await import('./usage_report.js')).usageReport(context, command);
    case 'backup':
      return (await import('./backup.js')).backup(context, { path: command.path, cwd: io.cwd, storePath: store.path });
    case 'web':
      return (await import('./web_command.js')).webCommand({ operator: store.operator, web: deps.config.web, clock: deps.clock, logger: deps.logger, signals: io.signals, err: context.err });
    default:
      return assertNever(command);
  }
}
