import type { ConversationSettings } from './chat_settings.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Tracer } from '../core/tracing.js';
import type { FaultInjector } from '../engine/fault_points.js';
import type { LLMProvider } from '../llm/provider.js';
import type { RecoveryRuntime } from '../recovery/generate_with_recovery.js';
import type { ToolCatalog } from '../tools/catalog.js';
import type { OperatorStore } from '../turn_state/operator_store.js';
import type { TurnStore } from '../turn_state/turn_store.js';
import type { HistoryStore } from '../turn_state/history_store.js';
import type { ModelChoiceStore } from '../turn_state/model_choice_store.js';
import type { UsageStore } from '../turn_state/usage_store.js';
import type { MessageSource, ReplySink, ServedChannels } from './transport.js';

/** Everything the conversation works with; built once by the program's wiring. */
export interface ConversationDeps {
  readonly config: ConversationSettings;
  /** Keeps nothing when durability is off (the store could not open at start-up): see `noTurnStore`. */
  readonly store: TurnStore;
  readonly history: HistoryStore;
  /** The model each channel's admins chose with `/model`, which its turns try first. */
  readonly models: ModelChoiceStore;
  /** What each turn spent, and the limits on it (DESIGN §10.1). */
  readonly usage: UsageStore;
  /** The operators' view of the same store, for `/status` and the admins' commands. */
  readonly operator: OperatorStore;
  /** `undefined` when no model is configured: every message gets a notice saying what to set. */
  readonly provider: LLMProvider | undefined;
  /** The models that stand in for `provider` when it is overloaded, in order (`llm.fallbacks`); none when absent. */
  readonly fallbacks?: readonly LLMProvider[];
  readonly recovery: RecoveryRuntime;
  readonly catalog: () => ToolCatalog;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly sink: ReplySink;
  /** The transport's view of past messages, to check a turn's original before resuming it. */
  readonly source: MessageSource;
  /** The channels this process serves (DESIGN §7.7): a turn whose calls were answered goes on only where its channel is served; every channel when absent. */
  readonly served?: ServedChannels;
  /** Where a crash test stops the engine; NO_FAULTS in production. */
  readonly faults: FaultInjector;
  /** Where each message and each run of a turn is traced (DESIGN §10.3); nothing is when absent. */
  readonly tracer?: Tracer;
}
