import type { Logger } from '../../core/logger.js';
import type { LLMProvider } from '../../llm/provider.js';
import type { RecoveryRuntime } from '../../recovery/generate_with_recovery.js';
import type { HistoryStore } from '../../turn_state/history_store.js';
import type { ConversationSettings } from '../chat_settings.js';
import { fitHistoryToBudget, summarizeThrough } from './history_policy.js';
import { modelsAt } from '../channel_overrides.js';

export interface FittingDeps {
  readonly config: ConversationSettings;
  readonly history: HistoryStore;
  readonly provider: LLMProvider | undefined;
  readonly fallbacks?: readonly LLMProvider[];
  readonly recovery: RecoveryRuntime;
  readonly logger: Logger;
}

/**
 * Fits each channel's history to its budget after a reply, off the channel's lane, so that a
 * slow summary never delays the channel's next message. A channel has at most one fitting at a
 * time; one asked for meanwhile runs once after it. A summary never races a turn's frozen
 * history: it is kept only if the channel did not change while it was written (see
 * {@link fitHistoryToBudget}). `signal` (shutdown) ends a summary's wait, and then nothing changes.
 */
export class HistoryFitting {
  readonly #running = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();

  constructor(
    private readonly deps: FittingDeps,
    private readonly signal: AbortSignal,
  ) {}

  /** Starts fitting `channel` (a channel key), or has it fitted again once its running fitting ends; nothing once shutdown began. */
  request(channel: string): void {
    if (this.signal.aborted) return;
    if (this.#running.has(channel)) {
      this.#again.add(channel);
      return;
    }
    const fitting = this.#fit(channel).finally(() => {
      this.#running.delete(channel);
      if (this.#again.delete(channel)) this.request(channel);
    });
    this.#running.set(channel, fitting);
  }

  /** Resolves when no fitting runs or waits. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running.values());
  }

  /** One fitting, logged when it changed the history; a failure (the store unavailable) is logged, and the next reply's fitting tries again. */
  async #fit(channel: string): Promise<void> {
    const { config, history, recovery, logger } = this.deps;
    try {
      const summarize = summarizeThrough(modelsAt(this.deps, undefined), recovery, this.signal);
      const { dropped, summarised } = await fitHistoryToBudget(history, channel, config.chat.history_max_chars, config.chat.compaction, summarize, this.signal);
      if (dropped > 0) logger.info({ channel, entries: dropped }, summarised ? 'history summarised to fit its budget' : 'history dropped to fit its budget');
    } catch (error) {
      logger.warn({ err: error, channel }, 'the history could not be fitted to its budget: the next reply tries again');
    }
  }
}
