import { readFileSync } from 'node:fs';
import type { Clock } from '../core/clock.js';
import { EXIT } from './exit_status.js';
import { commandFirst, isOperatorCommand } from './operator/operator_args.js';
import { runOperatorCommand } from './operator/operator_command.js';
import type { Environment } from '../config/interpolate.js';
import { loadConfig } from './config_schema.js';
import { formatConfigProblem, isConfigError } from '../config/problems.js';
import { createLogger, type LogOutput } from '../core/logger.js';
import type { Readable } from 'node:stream';
import { RandomIds } from '../core/ids.js';
import { SystemClock } from '../core/system_clock.js';
import { describeShards } from '../discord/shard_ownership.js';
import { chooseAdapter, describeAdapterChoice } from './adapter_choice.js';
import { configuredSecrets, logRedactor } from './config_secrets.js';
import { missingApiKeys } from './missing_api_key.js';
import { logDestination } from './log_destination.js';
import { openBotServices } from './bot_services.js';
import { storeLeftBehind } from './store_left_behind.js';
import { faultHookFrom } from './fault_hook.js';
import { runBot, type SignalSource } from './lifecycle.js';
import { consoleTransport } from '../console/console_transport.js';
import { AccessPolicy } from '../discord/access_policy.js';
import { DiscordLoginError, discordTransport } from '../discord/discord_transport.js';
import { parseCliArgs, USAGE } from './args.js';
import { isStoreInUseError } from '../turn_state/errors.js';
import { BotMetrics } from './metrics/bot_metrics.js';
import { isMetricsListenError } from './metrics/metrics_server.js';

export { EXIT };

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
 * The whole program behind `holdfast`: parses arguments, loads and validates the configuration,
 * starts logging and reports what it runs, serving metrics when `metrics.listen` asks for them.
 * Returns the exit status; bad arguments, bad configuration, a store file another bot process
 * holds and a metrics address it cannot listen at are reported one problem a line, without a
 * stack trace, with status 2.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const operator = commandFirst(argv);
  if (isOperatorCommand(operator)) return runOperatorCommand(operator, io, io.clock ?? new SystemClock());
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

  let loaded;
  try {
    loaded = loadConfig({ configPath: args.configPath, env: io.env, cwd: io.cwd });
  } catch (error) {
    if (!isConfigError(error)) throw error;
    for (const problem of error.problems) io.stderr.write(`holdfast: ${formatConfigProblem(problem)}\n`);
    return EXIT.usage;
  }
  const { config, source } = loaded;
  const leftBehind = storeLeftBehind(loaded, io.cwd, 'store');
  if (leftBehind !== undefined) {
    io.stderr.write(`holdfast: ${leftBehind}\n`);
    return EXIT.usage;
  }
  const secrets = configuredSecrets(loaded);
  const choice = chooseAdapter(args, config);
  const logs = logDestination(choice, { ...io, cwd: loaded.baseDir });
  const logger = createLogger(config.logging, logs.outputs, logRedactor(secrets));
  logger.info({ config: source.kind === 'file' ? source.path : 'defaults', adapter: choice }, `configuration loaded; starting ${describeAdapterChoice(choice)}`);
  for (const keyMissing of missingApiKeys(loaded)) logger.warn({ base_url: keyMissing.baseUrl, unset: keyMissing.unset }, keyMissing.message);
  const faults = faultHookFrom(io.env);
  const clock = new SystemClock();
  const metrics = BotMetrics.of(config.metrics, clock);
  let services;
  try {
    services = await openBotServices(config, loaded.baseDir, clock, logger, secrets, metrics?.instruments, choice.kind === 'discord' ? describeShards(config.discord.shards) : null);
  } catch (error) {
    if (!isStoreInUseError(error)) throw error;
    logs.close();
    io.stderr.write(`holdfast: ${error.message}\n`);
    return EXIT.usage;
  }
  try {
    const transport =
      choice.kind === 'discord'
        ? discordTransport({ discord: config.discord, vision: config.llm.vision, token: choice.token, access: new AccessPolicy(config.access, config.permissions), clock, logger })
        : consoleTransport({
            mode: choice.mode,
            input: io.stdin,
            output: io.stdout,
            ...(logs.screen === undefined ? {} : { screen: logs.screen }),
            ids: new RandomIds(),
            maxMessageChars: config.chat.max_message_chars,
          });
    const server = await metrics?.serve(services, transport, logger);
    try {
      await runBot(transport, { config, services, clock, logger, signals: io.signals, faults });
    } finally {
      await server?.close();
    }
  } catch (error) {
    if (!(error instanceof DiscordLoginError) && !isMetricsListenError(error)) throw error;
    io.stderr.write(`holdfast: ${secrets.redact(error.message)}\n`);
    return EXIT.usage;
  } finally {
    await services.close();
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    logs.close();
  }
  return EXIT.ok;
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}
