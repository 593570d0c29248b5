import { resolve } from 'node:path';
import type { FaultInjector } from '../engine/fault_points.js';
import { HistoryStore } from '../conversation/history_store.js';
import { Intake } from '../conversation/intake.js';
import type { MessageSource, ReplySink } from '../conversation/transport.js';
import { isConfigError } from '../config/problems.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { RandomIds } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import { SystemRandom } from '../core/random.js';
import { createProvider } from '../llm/create_provider.js';
import type { LLMProvider } from '../llm/provider.js';
import { ModelBreakerRegistry } from '../recovery/breaker_registry.js';
import type { RecoveryRuntime } from '../recovery/generate_with_recovery.js';
import { recoverySettings } from '../recovery/settings.js';
import { SubsystemGuard } from '../recovery/subsystem_guard.js';
import { deriveCatalog } from '../tools/catalog.js';
import { MemoryStore } from '../tools/memory_store.js';
import { openSqliteTurnStore } from '../turn_state/sqlite/sqlite_turn_store.js';
import { turnStoreTimings } from '../turn_state/store_options.js';
import type { TurnStore } from '../turn_state/turn_store.js';
import type { PendingReply } from '../turn_state/reply_types.js';
import type { TurnRecord } from '../turn_state/turn_types.js';

/** The long-lived parts of the running bot, one of each for the whole process. */
export interface BotServices {
  readonly store: TurnStore | undefined;
  readonly history: HistoryStore;
  readonly memory: MemoryStore | undefined;
  readonly provider: LLMProvider | undefined;
  readonly recovery: RecoveryRuntime;
  /** Turns the start-up sweep found interrupted: each channel is told once how to resume them. */
  readonly interrupted: readonly TurnRecord[];
  /** Final replies stored before the restart whose delivery was never confirmed: each is posted once more. */
  readonly pendingReplies: readonly PendingReply[];
  close(): Promise<void>;
}

/**
 * Opens everything the bot needs, relative to `cwd`. A turn store that cannot open leaves
 * durability off, loudly; a missing model leaves `provider` undefined so that each message can be
 * told what to configure.
 */
export async function openBotServices(config: Config, cwd: string, clock: Clock, logger: Logger): Promise<BotServices> {
  const ids = new RandomIds();
  let store: TurnStore | undefined;
  const interrupted: TurnRecord[] = [];
  let pendingReplies: PendingReply[] = [];
  if (config.turn_state.enabled) {
    const opened = openSqliteTurnStore({ dbPath: resolve(cwd, config.turn_state.db_path), clock, ids, logger: logger.child({ component: 'turn_state' }), ...turnStoreTimings(config.turn_state) });
    if (opened.available) {
      store = opened.store;
      for (const turnId of (await store.sweepOnStartup()).turnIds) {
        const turn = await store.getTurn(turnId);
        if (turn !== undefined) interrupted.push(turn);
      }
      pendingReplies = await store.listPendingReplies();
    }
  } else {
    logger.warn('turn_state.enabled is false: turns are not durable, and an interrupted reply is lost');
  }
  const history = HistoryStore.open(resolve(cwd, config.chat.history_db_path), clock);
  const wantsMemory = config.tools.builtin.some((name) => name === 'remember' || name === 'recall');
  const memory = wantsMemory ? MemoryStore.open(resolve(cwd, config.tools.memory.db_path), clock) : undefined;
  let provider: LLMProvider | undefined;
  try {
    provider = createProvider(config.llm, { clock, logger });
  } catch (error) {
    if (!isConfigError(error)) throw error;
    logger.warn({ problems: error.problems }, 'no model is configured: messages will be answered with what to set');
  }
  const settings = recoverySettings(config.llm_recovery);
  const recovery: RecoveryRuntime = {
    clock,
    random: new SystemRandom(),
    breakers: new ModelBreakerRegistry(settings.breaker, clock, ids, logger.child({ component: 'recovery' })),
    guard: new SubsystemGuard(settings.guard, clock, logger.child({ component: 'recovery' })),
    settings,
  };
  return {
    store,
    history,
    memory,
    provider,
    recovery,
    interrupted,
    pendingReplies,
    async close() {
      await store?.close();
      history.close();
      memory?.close();
    },
  };
}

/** The intake pipeline over the bot's services, for a transport's sink and message source. */
export function intakeFor(config: Config, services: BotServices, deps: { clock: Clock; logger: Logger; sink: ReplySink; source: MessageSource; faults: FaultInjector }): Intake {
  return new Intake({
    config,
    store: services.store,
    history: services.history,
    provider: services.provider,
    recovery: services.recovery,
    catalog: () => deriveCatalog(config.tools, { memory: services.memory }),
    ...deps,
  });
}
