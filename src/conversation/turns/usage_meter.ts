import type { Logger } from '../../core/logger.js';
import type { AttemptUsage, MeteredTurn, TurnLimitHit, TurnMeter } from '../../engine/turn_meter.js';
import type { ModelPrice } from '../../llm/llm_settings.js';
import { costOf } from '../../llm/prices.js';
import type { ModelCallUsage, TurnSpent, UsageStore } from '../../turn_state/usage_store.js';
import type { UsageRecord } from '../../turn_state/lease_riders.js';
import type { TurnLimits } from '../limits_settings.js';

/**
 * A turn's meter over the usage store (DESIGN §10.1): each model call's attempts are priced by
 * `llm.prices` and counted in the store under the turn's message, with the turn's next write or
 * by themselves; the per-turn limits are judged
 * against everything the turn spent, over all its runs — read from the store once, then kept up
 * to date here.
 */
export class UsageMeter implements TurnMeter {
  #spent: TurnSpent | undefined;

  constructor(
    private readonly usage: UsageStore,
    private readonly limits: TurnLimits,
    private readonly prices: Readonly<Record<string, ModelPrice>>,
    private readonly logger: Logger,
  ) {}

  async reached(turn: MeteredTurn): Promise<TurnLimitHit | undefined> {
    const { maxTokens, maxCost } = this.limits;
    if (maxTokens === undefined && maxCost === undefined) return undefined;
    const spent = await this.#spentBy(turn);
    if (maxTokens !== undefined && spent.tokens >= maxTokens) return { kind: 'max_tokens', max: maxTokens, spent: spent.tokens };
    if (maxCost !== undefined && spent.cost !== null && spent.cost >= maxCost) return { kind: 'max_cost', max: maxCost, spent: spent.cost };
    return undefined;
  }

  usageOf(turn: MeteredTurn, attempts: readonly AttemptUsage[]): UsageRecord | undefined {
    if (attempts.length === 0) return undefined;
    const calls = attempts.map(({ model, usage }): ModelCallUsage => ({
      model,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cachedInputTokens: usage.cacheReadTokens,
      reasoningTokens: usage.reasoningTokens,
      cost: costOf(this.prices[model], usage),
    }));
    if (this.#spent !== undefined) this.#spent = calls.reduce(added, this.#spent);
    return { identity: turn.identity, requesterId: turn.requester.userId, calls };
  }

  async record(usage: UsageRecord): Promise<void> {
    try {
      await this.usage.record(usage.identity, usage.requesterId, usage.calls);
    } catch (error) {
      this.logger.warn({ err: error, channel: usage.identity.channelId }, 'the usage of a model call could not be recorded');
    }
  }

  async #spentBy(turn: MeteredTurn): Promise<TurnSpent> {
    if (this.#spent !== undefined) return this.#spent;
    try {
      this.#spent = await this.usage.turnSpent(turn.identity);
    } catch (error) {
      this.logger.warn({ err: error, channel: turn.identity.channelId }, 'what the turn spent could not be read: its per-turn limits count this run alone');
      this.#spent = { tokens: 0, cost: null };
    }
    return this.#spent;
  }
}

function added(spent: TurnSpent, call: ModelCallUsage): TurnSpent {
  return { tokens: spent.tokens + (call.inputTokens ?? 0) + (call.outputTokens ?? 0), cost: call.cost === null ? spent.cost : (spent.cost ?? 0) + call.cost };
}
