import { pino } from 'pino';
import type { Config } from '../../../src/app/config_schema.js';
import { DEFAULT_FALLBACK_NOTE, type LLMProviderName } from '../../../src/llm/llm_settings.js';
import type { Clock } from '../../../src/core/clock.js';
import { ManualClock } from '../manual_clock.js';
import { createProvider } from '../../../src/llm/create_provider.js';
import type { LLMProvider } from '../../../src/llm/provider.js';

/** The `llm` section a test provider starts from; override what the test is about. */
export function llmConfig(provider: LLMProviderName, baseUrl: string, overrides: Partial<Config['llm']> = {}): Config['llm'] {
  return {
    provider,
    base_url: baseUrl,
    api_key: 'sk-test-key',
    model: 'test-model',
    max_tokens: 256,
    request_timeout_seconds: 30,
    stream_stall_timeout_seconds: 30,
    max_response_seconds: 600,
    headers: {},
    vision: false,
    fallbacks: [],
    fallback_note: DEFAULT_FALLBACK_NOTE,
    prices: {},
    ...overrides,
  };
}

/** A real provider pointed at a fake server, on a manual clock unless the test brings its own. */
export function testProvider(config: Config['llm'], clock: Clock = new ManualClock()): LLMProvider {
  return createProvider(config, { clock, logger: pino({ level: 'silent' }) });
}
