import type { ModelPrice } from './llm_settings.js';
import type { Usage } from './protocol.js';

const MILLION = 1_000_000;

/**
 * What a response's tokens cost at `price` (per million tokens): uncached input at `input`, input
 * read from the prompt cache at `cached_input` (else `input`), output at `output`. `null` when the
 * model has no price or the response reported no counts: usage is then shown in tokens only.
 *
 * @example
 * ```ts
 * costOf({ input: 2, cached_input: 0.5, output: 8 }, { inputTokens: 1_000, cacheReadTokens: 400, outputTokens: 100 });
 * // 600 × 2 + 400 × 0.5 + 100 × 8, per million: 0.0022
 * ```
 */
export function costOf(price: ModelPrice | undefined, usage: Usage): number | null {
  if (price === undefined || (usage.inputTokens === null && usage.outputTokens === null)) return null;
  const input = usage.inputTokens ?? 0;
  const cached = Math.min(input, usage.cacheReadTokens ?? 0);
  return ((input - cached) * price.input + cached * (price.cached_input ?? price.input) + (usage.outputTokens ?? 0) * price.output) / MILLION;
}
