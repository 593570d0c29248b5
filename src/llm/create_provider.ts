import { ConfigError } from '../config/problems.js';
import type { LLMProviderName, ModelSettings } from './llm_settings.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { HttpProvider, type WireProtocol } from './http_provider.js';
import { anthropicProtocol } from './providers/anthropic.js';
import { openAIChatProtocol } from './providers/openai_chat.js';
import { openAIResponsesProtocol } from './providers/openai_responses.js';
import type { LLMProvider } from './provider.js';
import { withoutImages } from './without_images.js';

const PROTOCOLS: Readonly<Record<LLMProviderName, WireProtocol>> = {
  openai: openAIChatProtocol,
  'openai-responses': openAIResponsesProtocol,
  anthropic: anthropicProtocol,
};

/** The API root of each provider when `llm.base_url` is not set. */
export const DEFAULT_BASE_URLS: Readonly<Record<LLMProviderName, string>> = {
  openai: 'https://api.openai.com/v1',
  'openai-responses': 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
};

/**
 * The provider the `llm` section (or one of its fallbacks) describes.
 * @throws {ConfigError} when the section lacks what a provider needs (a model).
 */
export function createProvider(llm: ModelSettings, deps: { readonly clock: Clock; readonly logger: Logger }): LLMProvider {
  if (llm.model === undefined) {
    throw new ConfigError([{ kind: 'invalid_value', path: ['llm', 'model'], message: 'required: the model to talk to, e.g. gpt-4.1-mini' }]);
  }
  return new HttpProvider({
    settings: {
      provider: llm.provider,
      baseUrl: (llm.base_url ?? DEFAULT_BASE_URLS[llm.provider]).replace(/\/+$/, ''),
      model: llm.model,
      maxTokens: llm.max_tokens,
      temperature: llm.temperature,
      headers: llm.headers,
    },
    protocol: PROTOCOLS[llm.provider],
    apiKeys: llm.api_keys ?? (llm.api_key === undefined ? [] : [llm.api_key]),
    limits: {
      requestTimeoutMs: llm.request_timeout_seconds * 1000,
      stallTimeoutMs: llm.stream_stall_timeout_seconds * 1000,
      maxResponseMs: llm.max_response_seconds * 1000,
    },
    clock: deps.clock,
    logger: deps.logger.child({ component: 'llm' }),
  });
}

/**
 * The provider one of `llm.fallbacks` describes. One that cannot see images is sent a note in
 * place of each image of a transcript the primary model saw them in.
 */
export function createFallbackProvider(fallback: ModelSettings, deps: { readonly clock: Clock; readonly logger: Logger }): LLMProvider {
  const provider = createProvider(fallback, deps);
  return fallback.vision ? provider : withoutImages(provider);
}
