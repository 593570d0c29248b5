import type { Logger } from '../core/logger.js';
import type { LLMAuthError } from './errors.js';

/**
 * What the log says when a provider refuses an API key: the first refusal of each key at ERROR,
 * naming the provider and the key's position (1-based in `llm.api_keys`, 1 for `llm.api_key`),
 * never the key; later refusals of the same key at DEBUG, since the first one said what to fix.
 */
export class AuthFailureLog {
  /** The positions already reported; 0 stands for "no key configured". */
  readonly #reported = new Set<number>();

  constructor(
    private readonly logger: Logger,
    /** How many keys are configured. */
    private readonly keyCount: number,
  ) {}

  /** The provider refused the key at `keyPosition` (ignored when no key is configured). */
  refused(error: LLMAuthError, keyPosition: number): void {
    const position = this.keyCount === 0 ? 0 : keyPosition;
    const fields = { provider: error.provider, model: error.model, keyPosition: position === 0 ? null : position, status: error.status, code: error.code };
    const what = position === 0 ? 'a request without an API key (none is configured)' : `API key ${position} of ${this.keyCount}`;
    if (this.#reported.has(position)) {
      this.logger.debug(fields, `the model provider ${error.provider} refused ${what} again`);
      return;
    }
    this.#reported.add(position);
    this.logger.error(fields, `the model provider ${error.provider} refused ${what}: every request with it fails until the configured key is fixed`);
  }
}
