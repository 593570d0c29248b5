import type { Usage } from '../llm/protocol.js';

/** What one run of a turn used, as its `turn finished` log line reports it. */
export interface TurnStatsSummary {
  readonly modelAttempts: number;
  readonly toolCalls: number;
  /** `null` while no response reported the count. */
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  /** Only when a response reported prompt-cache counts (Anthropic). */
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
}

/**
 * The counts of one run of a turn: model attempts (each HTTP attempt, retries included), tool
 * calls executed, and the tokens of the responses. A resumed run starts from zero: it counts only
 * what it did itself.
 */
export class TurnStats {
  #modelAttempts = 0;
  #toolCalls = 0;
  #inputTokens: number | undefined;
  #outputTokens: number | undefined;
  #cacheReadTokens: number | undefined;
  #cacheWriteTokens: number | undefined;

  /** A model attempt began. */
  modelAttempted(): void {
    this.#modelAttempts += 1;
  }

  /** A response arrived, with the tokens it used. */
  responded(usage: Usage): void {
    this.#inputTokens = plus(this.#inputTokens, usage.inputTokens);
    this.#outputTokens = plus(this.#outputTokens, usage.outputTokens);
    this.#cacheReadTokens = plus(this.#cacheReadTokens, usage.cacheReadTokens);
    this.#cacheWriteTokens = plus(this.#cacheWriteTokens, usage.cacheWriteTokens);
  }

  /** A tool was invoked. */
  toolCalled(): void {
    this.#toolCalls += 1;
  }

  summary(): TurnStatsSummary {
    return {
      modelAttempts: this.#modelAttempts,
      toolCalls: this.#toolCalls,
      inputTokens: this.#inputTokens ?? null,
      outputTokens: this.#outputTokens ?? null,
      ...(this.#cacheReadTokens === undefined ? {} : { cacheReadTokens: this.#cacheReadTokens }),
      ...(this.#cacheWriteTokens === undefined ? {} : { cacheWriteTokens: this.#cacheWriteTokens }),
    };
  }
}

/** `total` plus `count`; an unreported count leaves the total as it was. */
function plus(total: number | undefined, count: number | null | undefined): number | undefined {
  return count === null || count === undefined ? total : (total ?? 0) + count;
}
