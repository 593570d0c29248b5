import type { LoadedConfig } from '../config/load.js';
import { formatKeyPath } from '../config/problems.js';
import { DEFAULT_BASE_URLS } from '../llm/create_provider.js';
import type { LLMProviderName } from '../llm/llm_settings.js';
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
 * A model is configured against its provider's own API (no `llm.base_url`, or the default one)
 * with no API key, so every request would be refused: what to tell the operator at start, naming
 * the environment variable `llm.api_key` was meant to come from. Local servers need no key, so a
 * `base_url` of its own is never warned about.
 */
export function missingApiKey({ config, filled }: Pick<LoadedConfig<Config>, 'config' | 'filled'>): MissingApiKey | undefined {
  const llm = config.llm;
  const baseUrl = DEFAULT_BASE_URLS[llm.provider];
  const ownApi = llm.base_url === undefined || llm.base_url.replace(/\/+$/, '') === baseUrl;
  if (llm.model === undefined || !ownApi || llm.api_key !== undefined || llm.api_keys !== undefined) return undefined;
  const path = formatKeyPath(['llm', 'api_key']);
  const unset = filled.find((string) => formatKeyPath(string.path) === path)?.unset ?? [];
  const reason =
    unset.length === 0
      ? `${path} is not set (usually \${${KEY_VARIABLES[llm.provider]}})`
      : `${path} is empty because the environment variable ${unset.join(' and ')} ${unset.length === 1 ? 'is' : 'are'} not set or empty`;
  return { baseUrl, unset, message: `no API key for ${baseUrl}: ${reason}; every request to the model will be refused` };
}
