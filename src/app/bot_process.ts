import { loadConfig } from './config_schema.js';
import { formatConfigProblem, isConfigError } from '../config/problems.js';
import type { Clock } from '../core/clock.js';
import { createLogger, type Logger } from '../core/logger.js';
import { RandomIds } from '../core/ids.js';
import { SystemRandom } from '../core/random.js';
import { isUnreachableAtStart, type StartupRetry } from '../core/start_retries.js';
import { SystemClock } from '../core/system_clock.js';
import { NO_TRACER } from '../core/tracing.js';
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
import type { CliIo, SignalSource } from './run.js';
import { isStoreInUseError, isStoreRefusedError } from '../turn_state/errors.js';
import { isListenError } from './http_listener.js';
import { endStartingHeap } from './v8_heap.js';

/**
 * The bot as a process: loads and validates the configuration, starts logging and reports what
 * it runs, opens its services and runs it on the transport the configuration and `args` choose,
 * serving metrics when `metrics.listen` asks for them and sending traces when
 * `telemetry.otlp_endpoint` does, until its input ends or SIGINT/SIGTERM. The transport's library,
 * the metrics', the web console and OpenTelemetry are loaded only when they run. A store left where earlier
 * versions looked for it (relative to the current folder) stops the start with status 2. Discord and a PostgreSQL
 * store that the network keeps out of reach at start are tried again for `startup_timeout_seconds`.
 * Returns the exit status ({@link failedStart}), a failure said in one line without a stack trace.
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
  const stop = stopOnSignals(io.signals);
  const startup: StartupRetry = { clock, random: new SystemRandom(), logger, timeoutMs: config.startup_timeout_seconds * 1000, signal: stop.signal };
  const { listen } = config.metrics;
  const metrics = listen === undefined ? undefined : (await import('./metrics/bot_metrics.js')).BotMetrics.at(listen, clock);
  const { otlp_endpoint: endpoint } = config.telemetry;
  const tracer = endpoint === undefined ? NO_TRACER : (await import('./telemetry/otel_tracer.js')).openTracer({ ...config.telemetry, otlp_endpoint: endpoint }, secrets, logger);
  const shards = choice.kind === 'discord' ? describeShards(config.discord.shards) : null;
  let services;
  try {
    services = await openBotServices(config, loaded.baseDir, clock, logger, secrets, { ...(metrics === undefined ? {} : { instruments: metrics.instruments }), shards, startup, tracer });
  } catch (error) {
    await tracer.shutdown();
    const failed = failedStart(error, stop.signal);
    if (failed === undefined) throw error;
    await flushed(logger, failed);
    logs.close();
    if (failed.line !== undefined) io.stderr.write(`holdfast: ${secrets.redact(failed.line)}\n`);
    return failed.status;
  }
  try {
    const transport = await openTransport(choice, config, { io, logs, clock, logger, startup });
    endStartingHeap();
    const server = await metrics?.serve(services, transport, logger);
    const web =
      config.web.listen === undefined
        ? undefined
        : await (
            await import('./web/web_server.js')
          ).startWebConsole(config.web.listen, { operator: services.operator, live: services.recovery, token: config.web.token, clock, ids: new RandomIds(), logger });
    try {
      await runBot(transport, { config, services, clock, logger, stop: stop.signal, faults });
    } finally {
      await web?.close();
      await server?.close();
    }
  } catch (error) {
    const failed = failedStart(error, stop.signal);
    if (failed === undefined) throw error;
    await flushed(logger, failed);
    if (failed.line !== undefined) io.stderr.write(`holdfast: ${secrets.redact(failed.line)}\n`);
    return failed.status;
  } finally {
    await services.close();
    await tracer.shutdown();
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    logs.close();
  }
  return EXIT.ok;
}

/** A failed start this program knows: its exit status, and the line said on stderr (none for a stop). */
interface FailedStart {
  readonly status: ExitStatus;
  readonly line: string | undefined;
}

/**
 * How a start that failed ends. 0: SIGINT or SIGTERM came while the bot waited for Discord or its
 * store. 1: what it needs could not be reached for `startup_timeout_seconds` (a service manager
 * tries again later). 2: what a person must fix: a token, a shard or intents Discord refuses, a
 * store file another bot process holds, a database that refuses the user, the password or the
 * database, a metrics or web console address it cannot listen at. `undefined`: anything else, a bug, thrown on.
 */
function failedStart(error: unknown, stop: AbortSignal): FailedStart | undefined {
  if (stop.aborted && error === stop.reason) return { status: EXIT.ok, line: undefined };
  if (isUnreachableAtStart(error)) return { status: EXIT.failure, line: error.message };
  if (isDiscordLoginError(error)) return { status: error.failure === 'unreachable' ? EXIT.failure : EXIT.usage, line: error.message };
  if (isStoreInUseError(error) || isStoreRefusedError(error) || isListenError(error)) return { status: EXIT.usage, line: error.message };
  return undefined;
}

/** Logs a stop that came while starting, and waits until the log has everything, before the line on stderr. */
async function flushed(logger: Logger, failed: FailedStart): Promise<void> {
  if (failed.line === undefined) logger.info('stopped while starting: SIGINT or SIGTERM came while the bot waited for Discord or its store');
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
}

/** Aborted at the first SIGINT or SIGTERM, from the start of the process on. */
function stopOnSignals(signals: SignalSource | undefined): AbortController {
  const stop = new AbortController();
  signals?.once('SIGINT', () => stop.abort());
  signals?.once('SIGTERM', () => stop.abort());
  return stop;
}

/** The transport `choice` names, its module loaded now: discord.js only for Discord. */
async function openTransport(choice: AdapterChoice, config: Config, deps: { io: CliIo; logs: LogDestination; clock: Clock; logger: Logger; startup: StartupRetry }): Promise<Transport> {
  const { io, logs, clock, logger, startup } = deps;
  if (choice.kind === 'discord') {
    const [{ discordTransport }, { AccessPolicy }] = await Promise.all([import('../discord/discord_transport.js'), import('../discord/access_policy.js')]);
    return discordTransport({ discord: config.discord, vision: config.llm.vision, token: choice.token, access: new AccessPolicy(config.access, config.permissions), clock, logger, startup });
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
