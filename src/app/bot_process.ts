import { loadConfig } from './config_schema.js';
import { formatConfigProblem, isConfigError } from '../config/problems.js';
import type { Clock } from '../core/clock.js';
import { createLogger, type Logger } from '../core/logger.js';
import { RandomIds } from '../core/ids.js';
import { SystemClock } from '../core/system_clock.js';
import type { Transport } from '../conversation/transport.js';
import { describeShards } from '../discord/shard_ownership.js';
import { isDiscordLoginError } from '../discord/discord_login_error.js';
import { chooseAdapter, describeAdapterChoice, type AdapterChoice } from './adapter_choice.js';
import type { CliArgs } from './args.js';
import { configuredSecrets, logRedactor } from './config_secrets.js';
import type { Config } from './config_schema.js';
import { missingApiKeys } from './missing_api_key.js';
import { logDestination, type LogDestination } from './log_destination.js';
import { openBotServices } from './bot_services.js';
import { storeLeftBehind } from './store_left_behind.js';
import { EXIT, type ExitStatus } from './exit_status.js';
import { faultHookFrom } from './fault_hook.js';
import { runBot } from './lifecycle.js';
import type { CliIo } from './run.js';
import { isStoreInUseError } from '../turn_state/errors.js';
import { isMetricsListenError } from './metrics/metrics_server.js';

/**
 * The bot as a process: loads and validates the configuration, starts logging and reports what
 * it runs, opens its services and runs it on the transport the configuration and `args` choose,
 * serving metrics when `metrics.listen` asks for them. The transport's library and the metrics'
 * are loaded only when they run. Returns the exit status: bad configuration, a store left where
 * earlier versions looked for it (relative to the current folder), a store file another
 * bot process holds, a refused Discord login and a metrics address it cannot listen at are
 * reported one problem a line, without a stack trace, with status 2.
 */
export async function runBotProcess(args: CliArgs, io: CliIo): Promise<ExitStatus> {
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
  const metrics = config.metrics.listen === undefined ? undefined : (await import('./metrics/bot_metrics.js')).BotMetrics.of(config.metrics, clock);
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
    const transport = await openTransport(choice, config, { io, logs, clock, logger });
    const server = await metrics?.serve(services, transport, logger);
    try {
      await runBot(transport, { config, services, clock, logger, signals: io.signals, faults });
    } finally {
      await server?.close();
    }
  } catch (error) {
    if (!isDiscordLoginError(error) && !isMetricsListenError(error)) throw error;
    io.stderr.write(`holdfast: ${secrets.redact(error.message)}\n`);
    return EXIT.usage;
  } finally {
    await services.close();
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    logs.close();
  }
  return EXIT.ok;
}

/** The transport `choice` names, its module loaded now: discord.js only for Discord. */
async function openTransport(choice: AdapterChoice, config: Config, deps: { io: CliIo; logs: LogDestination; clock: Clock; logger: Logger }): Promise<Transport> {
  const { io, logs, clock, logger } = deps;
  if (choice.kind === 'discord') {
    const [{ discordTransport }, { AccessPolicy }] = await Promise.all([import('../discord/discord_transport.js'), import('../discord/access_policy.js')]);
    return discordTransport({ discord: config.discord, vision: config.llm.vision, token: choice.token, access: new AccessPolicy(config.access, config.permissions), clock, logger });
  }
  const { consoleTransport } = await import('../console/console_transport.js');
  return consoleTransport({
    mode: choice.mode,
    input: io.stdin,
    output: io.stdout,
    ...(logs.screen === undefined ? {} : { screen: logs.screen }),
    ids: new RandomIds(),
    maxMessageChars: config.chat.max_message_chars,
  });
}
