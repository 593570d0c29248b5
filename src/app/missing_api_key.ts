import type { LoadedConfig } from '../config/load.js';
import { formatKeyPath } from '../config/problems.js';
import { DEFAULT_BASE_URLS } from '../llm/create_provider.js';
import type { LLMProviderName, ModelSettings } from '../llm/llm_settings.js';
import type { Config } from './config_schema.js';

/** The variable the provider's own documentation names for its key. */
const KEY_VARIABLES: Readonly<Record<LLMProviderName, string>> = {
  openai: 'OPENAI_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

/** Why a start goes on without an API key its provider needs, for the start-up warning. */
export interface MissingApiKey {
  readonly baseUrl: string;
  /** The variables `llm.api_key` referenced that were unset or empty; none when it named none. */
  readonly unset: readonly string[];
  readonly message: string;
}

/**
 * The configured models (`llm` and each of `llm.fallbacks`) that talk to their provider's own API
 * (no `base_url`, or the default one) with no API key, so that every request to them would be
 * refused: what to tell the operator at start, naming the environment variable each `api_key`
 * was meant to come from. Local servers need no key, so a `base_url` of its own is never warned about.
 */
export function missingApiKeys({ config, filled }: Pick<LoadedConfig<Config>, 'config' | 'filled'>): MissingApiKey[] {
  const { llm } = config;
  if (llm.model === undefined) return [];
  const models = [
    { model: llm, at: ['llm'], what: 'the model' },
    ...llm.fallbacks.map((fallback, index) => ({ model: fallback, at: ['llm', 'fallbacks', index], what: `the fallback model ${fallback.model}` })),
  ];
  return models.flatMap(({ model, at, what }) => {
    const missing = missingKey(model, formatKeyPath([...at, 'api_key']), what, filled);
    return missing === undefined ? [] : [missing];
  });
}

function missingKey(model: ModelSettings, path: string, what: string, filled: LoadedConfig<Config>['filled']): MissingApiKey | undefined {
  const baseUrl = DEFAULT_BASE_URLS[model.provider];
  const ownApi = model.base_url === undefined || model.base_url.replace(/\/+$/, '') === baseUrl;
  if (!ownApi || model.api_key !== undefined || model.api_keys !== undefined) return undefined;
  const unset = filled.find((string) => formatKeyPath(string.path) === path)?.unset ?? [];
  const reason =
    unset.length === 0
      ? `${path} is not set (usually \${${KEY_VARIABLES[model.provider]}})`
      : `${path} is empty because the environment variable ${unset.join(' and ')} ${unset.length === 1 ? 'is' : 'are'} not set or empty`;
  return { baseUrl, unset, message: `no API key for ${baseUrl}: ${reason}; every request to ${what} will be refused` };
}
