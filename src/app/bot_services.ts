import type { FaultInjector } from '../engine/fault_points.js';
import { Intake } from '../conversation/turns/intake.js';
import type { MessageSource, ReplySink, ServedChannels } from '../conversation/transport.js';
import { isConfigError } from '../config/problems.js';
import type { Config } from './config_schema.js';
import { openStore } from '../turn_state/open_store.js';
import type { Clock } from '../core/clock.js';
import { RandomIds } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import { NO_TRACER, type Tracer } from '../core/tracing.js';
import { traceInterrupted } from '../engine/turn_trace.js';
import type { SecretValues } from '../core/secret_values.js';
import { SystemRandom } from '../core/random.js';
import type { StartupRetry } from '../core/start_retries.js';
import { createFallbackProvider, createProvider } from '../llm/create_provider.js';
import type { LLMProvider } from '../llm/provider.js';
import { ModelBreakerRegistry } from '../recovery/breaker_registry.js';
import type { RecoveryRuntime } from '../recovery/generate_with_recovery.js';
import { recoverySettings } from '../recovery/settings.js';
import { SubsystemGuard } from '../recovery/subsystem_guard.js';
import { deriveCatalog } from '../tools/catalog.js';
import { McpServers } from '../tools/mcp/mcp_servers.js';
import type { HistoryStore } from '../turn_state/history_store.js';
import type { MemoryStore } from '../turn_state/memory_store.js';
import { redactingHistoryStore, redactingMemoryStore, redactingModelChoiceStore, redactingOperatorStore, redactingTurnStore, redactingUsageStore } from '../turn_state/redacting_stores.js';
import type { UsageStore } from '../turn_state/usage_store.js';
import type { ModelChoiceStore } from '../turn_state/model_choice_store.js';
import type { OperatorStore } from '../turn_state/operator_store.js';
import type { TurnStore } from '../turn_state/turn_store.js';
import type { PendingReply } from '../turn_state/reply_types.js';
import type { TurnRecord } from '../turn_state/turn_types.js';

/** The long-lived parts of the running bot, one of each for the whole process. */
export interface BotServices {
  /** Keeps nothing when no durable store could open: see `noTurnStore`. */
  readonly store: TurnStore;
  /** The operators' view of the same store (DESIGN §9.1). */
  readonly operator: OperatorStore;
  readonly history: HistoryStore;
  readonly memory: MemoryStore | undefined;
  /** The model each channel's admins chose (`/model`). */
  readonly models: ModelChoiceStore;
  /** What each turn spent, and the limits on it (DESIGN §10.1). */
  readonly usage: UsageStore;
  /** The MCP servers of `tools.mcp`, started with the bot and stopped by `close`. */
  readonly mcp: McpServers;
  readonly provider: LLMProvider | undefined;
  /** The models of `llm.fallbacks`, in order; none without a primary. */
  readonly fallbacks: readonly LLMProvider[];
  readonly recovery: RecoveryRuntime;
  /** Turns the start-up sweep found interrupted: each channel is told once how to resume them. */
  readonly interrupted: readonly TurnRecord[];
  /** Final replies stored before the restart whose delivery was never confirmed: each is posted once more. */
  readonly pendingReplies: readonly PendingReply[];
  /** The configured secrets: kept out of what the stores write and of what the bot posts. */
  readonly secrets: SecretValues;
  /** Where messages and turns are traced (DESIGN §10.3): NO_TRACER unless `telemetry.otlp_endpoint` is set. */
  readonly tracer: Tracer;
  close(): Promise<void>;
}

/** Wrappers put around the turn store and the models as they open, and what hears of a move to a fallback model: the metrics' counters. */
export interface ServiceInstruments {
  turnStore(store: TurnStore): TurnStore;
  usageStore(usage: UsageStore): UsageStore;
  provider(provider: LLMProvider): LLMProvider;
  modelSwitched?(from: LLMProvider, to: LLMProvider): void;
}

const UNINSTRUMENTED: ServiceInstruments = { turnStore: (store) => store, usageStore: (usage) => usage, provider: (provider) => provider };

/** What a bot process adds to its services: the metrics' instruments, its Discord shards, how it waits for its store at start. */
export interface ServiceOptions {
  /** Wrappers put around the turn store and the models; none by default. */
  readonly instruments?: ServiceInstruments;
  /** The Discord shards this process serves, for the PostgreSQL store's registry of processes; `null` (the default) when none. */
  readonly shards?: string | null;
  /** How a PostgreSQL store that cannot be reached yet is tried again; by default for `startup_timeout_seconds`, never stopped. */
  readonly startup?: StartupRetry;
  /** Where messages and turns are traced; none by default. */
  readonly tracer?: Tracer;
}

/**
 * Opens everything the bot needs, relative paths against `cwd` (the configuration file's folder): the store `turn_state.backend` names (turns,
 * history, memory notes) — the SQLite file held by this process until `close`, or the PostgreSQL
 * database shared with the bot's other processes (DESIGN §7.7) — writing none of `secrets`. A store that is off or cannot open leaves
 * durability off and history and notes in memory, loudly; a missing model leaves `provider`
 * undefined so that each message can be told what to configure (see {@link ServiceOptions}). The MCP
 * servers of `tools.mcp` are started and have listed their tools (or failed, logged) before this returns.
 * Each turn the start-up sweep found interrupted is traced where its last run's trace was.
 * @throws {StoreInUseError} when another bot process holds the store file.
 * @throws {StoreRefusedError} when the database server refuses what `turn_state.postgres.url` says.
 * @throws {UnreachableAtStartError} when the PostgreSQL store could not be reached for `startup_timeout_seconds`.
 */
export async function openBotServices(config: Config, cwd: string, clock: Clock, logger: Logger, secrets: SecretValues, options: ServiceOptions = {}): Promise<BotServices> {
  const ids = new RandomIds();
  const instruments = options.instruments ?? UNINSTRUMENTED;
  const startup = options.startup ?? { clock, random: new SystemRandom(), logger, timeoutMs: config.startup_timeout_seconds * 1000, signal: new AbortController().signal };
  const opened = await openStore(config.turn_state, { mode: 'bot', cwd, clock, ids, logger, shards: options.shards ?? null, startup });
  const store = instruments.turnStore(redactingTurnStore(opened.turns, secrets));
  const operator = redactingOperatorStore(opened.operator, secrets);
  const history = redactingHistoryStore(opened.history, secrets);
  const models = redactingModelChoiceStore(opened.models, secrets);
  const usage = instruments.usageStore(redactingUsageStore(opened.usage, secrets));
  const tracer = options.tracer ?? NO_TRACER;
  const interrupted: TurnRecord[] = [];
  for (const turnId of (await store.sweepOnStartup()).turnIds) {
    const turn = await store.getTurn(turnId);
    if (turn === undefined) continue;
    interrupted.push(turn);
    if (turn.traces.length > 0) traceInterrupted(tracer, turn, await store.listOps(turnId));
  }
  const pendingReplies = await store.listPendingReplies();
  const wantsMemory = config.tools.builtin.some((name) => name === 'remember' || name === 'recall');
  const memory = wantsMemory ? redactingMemoryStore(opened.memory, secrets) : undefined;
  let provider: LLMProvider | undefined;
  let fallbacks: LLMProvider[] = [];
  try {
    provider = instruments.provider(createProvider(config.llm, { clock, logger }));
    fallbacks = config.llm.fallbacks.map((fallback) => instruments.provider(createFallbackProvider(fallback, { clock, logger })));
  } catch (error) {
    if (!isConfigError(error)) throw error;
    logger.warn({ problems: error.problems }, 'no model is configured: messages will be answered with what to set');
  }
  const mcp = await McpServers.start(config.tools.mcp, { cwd, clock, logger });
  const settings = recoverySettings(config.llm_recovery);
  const recovery: RecoveryRuntime = {
    clock,
    random: new SystemRandom(),
    breakers: new ModelBreakerRegistry(settings.breaker, clock, ids, logger.child({ component: 'recovery' })),
    guard: new SubsystemGuard(settings.guard, clock, logger.child({ component: 'recovery' })),
    settings,
    ...(instruments.modelSwitched === undefined ? {} : { onSwitch: (from: LLMProvider, to: LLMProvider) => instruments.modelSwitched?.(from, to) }),
  };
  return {
    store,
    operator,
    history,
    memory,
    models,
    usage,
    mcp,
    provider,
    fallbacks,
    recovery,
    interrupted,
    pendingReplies,
    secrets,
    tracer,
    close: async () => {
      await mcp.close();
      await opened.close();
    },
  };
}

/** The intake pipeline over the bot's services, for a transport's sink and message source. */
export function intakeFor(
  config: Config,
  services: BotServices,
  deps: { clock: Clock; logger: Logger; sink: ReplySink; source: MessageSource; faults: FaultInjector; served?: ServedChannels },
): Intake {
  return new Intake({
    config,
    store: services.store,
    operator: services.operator,
    history: services.history,
    models: services.models,
    usage: services.usage,
    provider: services.provider,
    fallbacks: services.fallbacks,
    recovery: services.recovery,
    tracer: services.tracer,
    catalog: () => deriveCatalog(config.tools, { memory: services.memory, mcp: services.mcp }),
    ...deps,
  });
}
